// Task names are chosen by whoever starts the task, agents included, and prompts show them.
// An agent could start a task named like one the human already runs ("fix CI") or like
// Airlock itself, so that "allow for this task" looks like it goes to the task the human
// trusts. Names are not refused (two `mcp: fs` sessions at once are normal); a prompt of a
// task whose name reads the same as another running task's, or as Airlock's, says so.
// "Reads the same": after NFKC (fullwidth, ligatures), without control and invisible
// format characters (zero-width, bidi), spacing collapsed, case folded. Look-alike letters
// of other scripts (Cyrillic а for Latin a) are not folded; the task id on the prompt is
// what tells tasks apart.

/** The form two names that read the same share. */
export function nameKey(name: string): string {
  return name
    .normalize('NFKC')
    // Spacing first (a tab is a control character too, but reads as a space), then the invisible.
    .replace(/\s+/gu, ' ')
    .replace(/[\p{Cc}\p{Cf}]/gu, '')
    .replace(/ +/g, ' ')
    .trim()
    .toLowerCase();
}

/** A name that starts with "Airlock" (however spelled as above): it may pose as Airlock's own prompt. */
export function namedLikeAirlock(name: string): boolean {
  return /^[^\p{L}\p{N}]*airlock(?![\p{L}\p{N}])/u.test(nameKey(name));
}

/** Why a prompt of this task must say its name is not unique, or none. */
export function taskNameReasons(task: { id: string; name: string }, namesakes: string[]): string[] {
  const out: string[] = [];
  const shown = JSON.stringify(task.name.slice(0, 80));
  if (namesakes.length) {
    const ids = namesakes.slice(0, 3).join(', ') + (namesakes.length > 3 ? ` and ${namesakes.length - 3} more` : '');
    out.push(`another running task has the same name ${shown} (${ids}): this is task ${task.id}; check the id before allowing anything for this task`);
  }
  if (namedLikeAirlock(task.name)) out.push(`the task is named like Airlock itself (${shown}): task names are chosen by whoever starts the task`);
  return out;
}
