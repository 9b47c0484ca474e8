// Words for where a request's facts came from, the same in every UI (web, Electron,
// `airlock watch`): an MCP action from the server's annotations, the user's pin, or only
// the tool's name (issue 14), and the size of what an egress task has sent (issue 16).

export type ActionOrigin = 'annotation' | 'pin' | 'name';

export const ACTION_ORIGIN_WORDS: Record<ActionOrigin, string> = {
  annotation: "the server's annotations (readOnlyHint, destructiveHint, openWorldHint)",
  pin: 'your pin (setting mcpToolActions)',
  name: "only the tool's name: the server's annotations were never seen, so it is not taken as a read",
};

export function bytesInWords(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '?';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(1)} GiB`;
}

/**
 * The prompt's offered conditions, one part each: the daemon also offers every part joined
 * with `&&` first; the UIs let the human tick parts instead, so that one is left out.
 */
export function conditionParts(conditions: readonly { when: string; words: string }[] | undefined): { when: string; words: string }[] {
  const list = conditions ?? [];
  const [first, ...rest] = list;
  return first && rest.length > 1 && first.when === rest.map((c) => c.when).join(' && ') ? rest : [...list];
}
