// The other spellings of one shell command part that a deny grant's command pattern must
// reach. A deny of `rm *` is a promise about running rm, however the agent writes it:
// `/bin/rm x`, `\rm x`, `"rm" x`, `rm  x`, `command rm x`, `env rm x`, `sudo rm x`,
// `nice rm x`, `xargs rm`, `find . -exec rm {} +` (blackbox9: each went past the deny; only
// the part's text as written was matched). Used for deny grants only: an allow matches the
// text as written, so an unusual spelling asks instead of being allowed.
import * as path from 'node:path';

/** Words of a simple command, quotes and backslashes removed (crude on purpose: more forms only deny more). */
function words(cmd: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false;
  let q: '"' | "'" | null = null;
  for (let i = 0; i < cmd.length; i++) {
    const c = cmd[i]!;
    if (q) {
      if (c === q) q = null;
      else if (c === '\\' && q === '"' && i + 1 < cmd.length) cur += cmd[++i];
      else cur += c;
      continue;
    }
    if (c === "'" || c === '"') {
      q = c;
      has = true;
    } else if (c === '\\' && i + 1 < cmd.length) {
      cur += cmd[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
    if (out.length > 256) break;
  }
  if (has || cur) out.push(cur);
  return out;
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
/** Wrappers that run the rest of their words as a command; the options that take a value. */
const WRAPPERS: Record<string, Set<string>> = {
  command: new Set(),
  exec: new Set(['-a']),
  builtin: new Set(),
  env: new Set(['-u', '--unset', '-C', '--chdir', '-S', '--split-string']),
  sudo: new Set(['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-T', '--user', '--group', '--chdir', '--prompt', '--role', '--type', '--other-user', '--close-from', '--command-timeout', '--host']),
  doas: new Set(['-u', '-C']),
  nice: new Set(['-n', '--adjustment']),
  nohup: new Set(),
  time: new Set(['-f', '--format', '-o', '--output']),
  timeout: new Set(['-s', '--signal', '-k', '--kill-after']),
  stdbuf: new Set(['-i', '-o', '-e', '--input', '--output', '--error']),
  ionice: new Set(['-c', '-n', '-p', '-P', '-u', '--class', '--classdata']),
  setsid: new Set(),
  chrt: new Set(),
  taskset: new Set(),
  xargs: new Set(['-I', '-i', '-n', '-L', '-l', '-P', '-d', '-s', '-a', '-E', '-e', '--max-args', '--max-lines', '--max-procs', '--delimiter', '--max-chars', '--arg-file', '--eof', '--replace']),
  unbuffer: new Set(),
  watch: new Set(['-n', '--interval', '-d']),
};

/** git's options before the subcommand that take the next word as their value. */
const GIT_VALUED = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--config-env', '--super-prefix', '--list-cmds', '--attr-source']);

function form(ws: string[]): string | null {
  if (ws.length === 0 || !ws[0]) return null;
  return [path.posix.basename(ws[0]), ...ws.slice(1)].join(' ');
}

/** The part as written, and each command it runs with wrappers, paths and quoting taken away. */
export function commandForms(cmd: string): string[] {
  const forms = new Set<string>([cmd]);
  let ws = words(cmd);
  for (let depth = 0; depth < 16 && ws.length; depth++) {
    while (ws.length && ASSIGNMENT.test(ws[0]!)) ws = ws.slice(1);
    const f = form(ws);
    if (f === null) break;
    forms.add(f);
    const name = path.posix.basename(ws[0]!);
    if (name === 'git') {
      // `git -C . push`, `git -c k=v push`, `git --git-dir=x push` are `git push` too.
      let i = 1;
      while (i < ws.length && ws[i]!.startsWith('-')) i += GIT_VALUED.has(ws[i]!) ? 2 : 1;
      if (i > 1) forms.add(['git', ...ws.slice(i)].join(' '));
      break;
    }
    if (name === 'find') {
      const i = ws.findIndex((w) => w === '-exec' || w === '-execdir' || w === '-ok' || w === '-okdir');
      if (i < 0) break;
      ws = ws.slice(i + 1);
      continue;
    }
    const valued = WRAPPERS[name];
    if (!valued) break;
    let i = 1;
    // Options (and, for timeout, the duration; for nice, `-N`): up to the command they run.
    while (i < ws.length) {
      const w = ws[i]!;
      if (w === '--') {
        i++;
        break;
      }
      if (name === 'env' && ASSIGNMENT.test(w)) {
        i++;
        continue;
      }
      if (!w.startsWith('-') || w === '-') break;
      i += valued.has(w) ? 2 : 1;
    }
    if (name === 'timeout' && i < ws.length) i++;
    ws = ws.slice(i);
  }
  return [...forms];
}
