// Socket paths written into an ssh command line so that ssh uses exactly them, and read
// back from one. ssh does not take `-R LISTEN:CONNECT` or `-o ForwardAgent=PATH` literally:
// it splits `-R` at unescaped colons (a backslash escapes the next character), splits an
// `-o` value into words like a config line (blanks, quotes, backslashes), and then expands
// `%` tokens (`%d` your home, `%h` the host…) and `${VAR}` from the environment in both.
// An AIRLOCK_HOME or `--server-socket` holding any of these would make ssh forward to,
// or create, another socket than the one Airlock opened — one another user may control.
// `%` has an escape (`%%`); `${` has none in OpenSSH (misc.c vdollar_percent_expand
// expands every `${`), so a path holding it is refused. Checked against the real
// `ssh -G` in test/integration/remoteleft-ssh-paths.test.ts.

/** Why ssh cannot be told `p` literally, or null. */
export function sshPathProblem(p: string): string | null {
  if (p.includes('${')) return 'it holds "${", which ssh expands from the environment and cannot escape';
  if (/[\u0000-\u001f\u007f]/.test(p)) return 'it holds a control character';
  return null;
}

function checked(p: string): string {
  const why = sshPathProblem(p);
  if (why) throw new Error(`socket path ${JSON.stringify(p)} cannot be given to ssh: ${why}`);
  return p;
}

const percent = (p: string) => p.replace(/%/g, '%%');

/** One field of `-R LISTEN:CONNECT` (ssh's parse_fwd_field): `%`, `\` and `:` escaped. */
export function forwardField(p: string): string {
  return percent(checked(p)).replace(/[\\:]/g, (c) => `\\${c}`);
}

/** The value of `-o ForwardAgent=…`: `%` escaped, quoted when the config-line reader would split or strip it. */
export function forwardAgentValue(p: string): string {
  const v = percent(checked(p));
  return /[\s"'\\#]/.test(v) ? `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"` : v;
}

/**
 * A config line's words as ssh reads them (misc.c argv_split): blanks split, quotes group,
 * `\` escapes a quote, a backslash or (unquoted) a blank, `#` at a word's start ends the
 * line. Null for an unclosed quote (ssh refuses the line).
 */
export function configWords(s: string): string[] | null {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    while (s[i] === ' ' || s[i] === '\t') i++;
    if (i >= s.length || s[i] === '#') return out;
    let word = '';
    let quote = '';
    for (; i < s.length; i++) {
      const c = s[i]!;
      const n = s[i + 1];
      if (c === '\\' && (n === "'" || n === '"' || n === '\\' || (quote === '' && n === ' '))) word += s[++i];
      else if (quote === '' && (c === ' ' || c === '\t')) break;
      else if (quote === '' && (c === '"' || c === "'")) quote = c;
      else if (quote !== '' && c === quote) quote = '';
      else word += c;
    }
    if (quote !== '') return null;
    out.push(word);
  }
}

/** The fields of a forward spec as ssh splits them (readconf.c parse_fwd_field); null where ssh refuses it. */
export function forwardFields(spec: string): string[] | null {
  const out: string[] = [];
  let i = 0;
  while (i < spec.length) {
    if (spec[i] === '[') {
      const end = spec.indexOf(']', i + 1);
      if (end < 0 || (end + 1 < spec.length && spec[end + 1] !== ':')) return null;
      out.push(spec.slice(i + 1, end));
      i = end + 2;
      continue;
    }
    let field = '';
    for (; i < spec.length && spec[i] !== ':'; i++) {
      if (spec[i] === '\\') {
        if (i + 1 >= spec.length) return null;
        i++;
      }
      field += spec[i];
    }
    out.push(field);
    i++;
  }
  return out;
}

/** The path ssh uses for a written one when it expands to itself only (`%%` tokens); else null. */
export function literalPath(written: string): string | null {
  if (written.includes('${')) return null;
  let out = '';
  for (let i = 0; i < written.length; i++) {
    if (written[i] !== '%') out += written[i];
    else if (written[i + 1] === '%') out += written[++i];
    else return null;
  }
  return out;
}

/**
 * The local (connecting) end of a reverse forward as ssh would use it: `value` is a `-R`
 * argument, or with `config` the words after `RemoteForward` in `-o`. Null when that end
 * is no literal path (a token or variable ssh expands, or a spec ssh refuses).
 */
export function reverseForwardTarget(value: string, config = false): string | null {
  const words = config ? configWords(value) : [value];
  const fields = words && forwardFields(words.join(':'));
  if (!fields || fields.length < 2) return null;
  return literalPath(fields[fields.length - 1]!);
}
