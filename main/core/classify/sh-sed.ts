// What a sed script does, read the way GNU sed's compiler reads it (compile.c): which
// commands run shell commands (`e`, the `s///e` flag), which write files (`w`, `W`,
// `s///w`), which read files (`r`, `R`). Anything this parser does not understand is
// reported as an error, and the classifier then treats the command as execute.
//
// Regular expressions are scanned twice, once treating `[...]` as protecting the
// delimiter (GNU sed 4.9: `s/[/]/x/`) and once not (older seds and busybox): a script
// is a read only if it is one under both readings.

export interface SedEffects {
  /** Runs shell commands: `e`, `s///e`. */
  exec: boolean;
  /** Files written: `w F`, `W F`, `s///w F` (/dev/stdout and /dev/stderr excluded). */
  writes: string[];
  /** Files read: `r F`, `R F`. */
  reads: string[];
  /** Set when the script is not understood: then nothing else here can be trusted. */
  error?: string;
}

class SedError extends Error {}

const NOT_FILES = new Set(['/dev/stdout', '/dev/stderr']);

function parse(script: string, brackets: boolean): SedEffects {
  const fx: SedEffects = { exec: false, writes: [], reads: [] };
  const n = script.length;
  let i = 0;
  let depth = 0;
  const fail = (why: string): never => {
    throw new SedError(`${why} at character ${i + 1}`);
  };
  const ws = () => {
    while (i < n && (script[i] === ' ' || script[i] === '\t')) i++;
  };
  /** Scans to the unescaped `delim`; returns with i after it. */
  const delimited = (delim: string, isRegex: boolean) => {
    while (i < n) {
      const c = script[i];
      if (c === '\\') {
        i += 2;
        continue;
      }
      if (c === '\n' && !isRegex) {
        // A newline in a replacement must be escaped; GNU rejects a bare one.
        fail('unescaped newline');
      }
      if (isRegex && brackets && c === '[') {
        // Bracket expression: `]` right after `[` or `[^` is literal; [:class:] [=x=] [.x.] nest.
        let j = i + 1;
        if (script[j] === '^') j++;
        if (script[j] === ']') j++;
        while (j < n && script[j] !== ']') {
          if (script[j] === '[' && /[:=.]/.test(script[j + 1] ?? '')) {
            const close = script.indexOf(script[j + 1] + ']', j + 2);
            if (close < 0) fail('unterminated bracket class');
            j = close + 2;
          } else if (script[j] === '\n') fail('newline in bracket expression');
          else j++;
        }
        if (j >= n) fail('unterminated bracket expression');
        i = j + 1;
        continue;
      }
      i++;
      if (c === delim) return;
    }
    fail('unterminated regular expression');
  };
  /** The rest of the line (file names, labels with `;` kept, text). */
  const toEol = (): string => {
    const start = i;
    while (i < n && script[i] !== '\n') i++;
    return script.slice(start, i);
  };
  const fileArg = (): string => {
    ws();
    return toEol();
  };
  const label = () => {
    ws();
    // GNU sed 4.9 (read_label): a label ends at a blank, newline, `;`, `}` or `#`, and
    // what follows is the next command: `sed -n ':a w out'` and `sed 'ba w out'` write
    // `out` (the file is created when the script is compiled, even if the jump then
    // fails). Older seds read the label to the end of the line; parsing the rest as
    // commands finds everything either reading can do (a label with a blank in it then
    // fails to parse, and the command asks).
    while (i < n && !/[\s;}#]/.test(script[i])) i++;
  };
  /** After a command: spaces, then `;`, newline, `}`, `#` or the end. */
  const end = () => {
    ws();
    if (i >= n) return;
    const c = script[i];
    if (c === ';' || c === '\n') {
      i++;
      return;
    }
    if (c === '}' || c === '#') return;
    fail(`extra characters after command (${JSON.stringify(c)})`);
  };
  const address = (): boolean => {
    const c = script[i];
    if (c === undefined) return false;
    if (/[0-9]/.test(c)) {
      while (i < n && /[0-9]/.test(script[i])) i++;
      if (script[i] === '~') {
        i++;
        while (i < n && /[0-9]/.test(script[i])) i++;
      }
      return true;
    }
    if (c === '$') {
      i++;
      return true;
    }
    if (c === '/' || c === '\\') {
      let delim = '/';
      if (c === '\\') {
        delim = script[i + 1] ?? '';
        if (!delim || delim === '\n' || delim === '\\') fail('bad regex delimiter');
        i += 2;
      } else i++;
      delimited(delim, true);
      while (script[i] === 'I' || script[i] === 'M') i++;
      return true;
    }
    return false;
  };

  while (i < n) {
    // Separators and blanks between commands.
    while (i < n && /[\s;]/.test(script[i])) i++;
    if (i >= n) break;
    if (script[i] === '#') {
      toEol();
      continue;
    }
    if (address()) {
      ws();
      if (script[i] === ',') {
        i++;
        ws();
        if (script[i] === '+' || script[i] === '~') {
          i++;
          if (!/[0-9]/.test(script[i] ?? '')) fail('bad address step');
          while (i < n && /[0-9]/.test(script[i])) i++;
        } else if (!address()) fail('missing second address');
      }
    }
    ws();
    while (script[i] === '!') {
      i++;
      ws();
    }
    const cmd = script[i++];
    if (cmd === undefined) fail('missing command');
    switch (cmd) {
      case '{':
        depth++;
        continue;
      case '}':
        if (depth === 0) fail('unexpected }');
        depth--;
        end();
        continue;
      case '=': case 'd': case 'D': case 'g': case 'G': case 'h': case 'H': case 'n': case 'N':
      case 'p': case 'P': case 'x': case 'z': case 'F':
        end();
        continue;
      case 'l': case 'L': case 'q': case 'Q':
        ws();
        while (i < n && /[0-9]/.test(script[i])) i++;
        end();
        continue;
      case ':':
        if (i < n && /[\s;]/.test(script[i]) && script[i] !== ' ') fail('empty label');
        label();
        if (script[i] === ';') i++;
        continue;
      case 'b': case 't': case 'T':
        label();
        if (script[i] === ';') i++;
        continue;
      case 'v':
        label();
        if (script[i] === ';') i++;
        continue;
      case 'a': case 'i': case 'c': {
        // Text up to an unescaped newline; a backslash-newline continues it.
        ws();
        while (i < n) {
          if (script[i] === '\\') {
            i += 2;
            continue;
          }
          if (script[i] === '\n') break;
          i++;
        }
        continue;
      }
      case 'r': case 'R': {
        const f = fileArg();
        if (!f) fail('missing file name');
        fx.reads.push(f);
        continue;
      }
      case 'w': case 'W': {
        const f = fileArg();
        if (!f) fail('missing file name');
        if (!NOT_FILES.has(f)) fx.writes.push(f);
        continue;
      }
      case 'e':
        fx.exec = true;
        toEol();
        continue;
      case 's': {
        const delim = script[i++];
        if (!delim || delim === '\n' || delim === '\\') fail('bad s delimiter');
        delimited(delim, true);
        delimited(delim, false);
        // Flags: g p i I m M e, a number, then `w file` to the end of the line.
        for (;;) {
          const f = script[i];
          if (f === undefined) break;
          if (/[gpiImM0-9]/.test(f)) {
            i++;
            continue;
          }
          if (f === 'e') {
            fx.exec = true;
            i++;
            continue;
          }
          if (f === 'w') {
            i++;
            const file = fileArg();
            if (!file) fail('missing file name');
            if (!NOT_FILES.has(file)) fx.writes.push(file);
            break;
          }
          break;
        }
        end();
        continue;
      }
      case 'y': {
        const delim = script[i++];
        if (!delim || delim === '\n' || delim === '\\') fail('bad y delimiter');
        delimited(delim, false);
        delimited(delim, false);
        end();
        continue;
      }
      default:
        fail(`unknown command ${JSON.stringify(cmd)}`);
    }
  }
  if (depth !== 0) fail('unmatched {');
  return fx;
}

/** The effects of a sed script, the riskier of the two readings (see the top). */
export function sedEffects(script: string): SedEffects {
  const out: SedEffects = { exec: false, writes: [], reads: [] };
  for (const brackets of [true, false]) {
    try {
      const fx = parse(script, brackets);
      out.exec ||= fx.exec;
      for (const w of fx.writes) if (!out.writes.includes(w)) out.writes.push(w);
      for (const r of fx.reads) if (!out.reads.includes(r)) out.reads.push(r);
    } catch (e) {
      // If either reading fails we cannot be sure what this sed sees: report the error,
      // so the command is not a read.
      if (!(e instanceof SedError)) throw e;
      out.error ??= e.message;
    }
  }
  return out;
}
