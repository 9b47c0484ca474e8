// One word for a POSIX shell, quoted only when it has to be: what `airlock exec` classifies and
// records, the lines `task start --env` prints for eval, the ssh command `remote add` prints, a
// prompt's process command line. Plain words (letters, digits, `_@%+=:,./-`) stay as they are;
// anything else is single-quoted, a `'` inside written as `'\''`.
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
