// The GTFOBins corpus (https://gtfobins.github.io, source github.com/GTFOBins/GTFOBins.github.io):
// how ordinary Unix programs run a shell or a command, read or write a file, upload,
// download or load a library. Used by test/unit/classify-gtfobins.test.ts.
//
// Licence: GTFOBins is GPL-3.0 and Airlock is MIT, so its lines are NOT checked in here.
// They are read at test time from a local copy of the GTFOBins repository at the commit
// below (AIRLOCK_GTFOBINS: a bare git directory or a checkout; by default the mirror this
// project was developed next to), and the test skips, saying why, when there is none.
// What is checked in is ours: the extraction, the placeholders, the oracle, the list of
// expected exceptions (keyed by program, function and number, each with its reason), and
// the holes found, re-stated in our own words as unit tests that always run.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** The GTFOBins commit the exceptions were triaged against (2026-04-20). */
export const GTFOBINS_COMMIT = '7382261ef936e35896ba70e7a6b833352ffb9a22';
const DEFAULT_COPY = '/work/.mirror/GTFOBins+GTFOBins.github.io/repo';

/** The task's working directory the lines are judged in (the write fuzzer's, test/fuzz). */
export const TASK_DIR = '/tmp/w';
/** Where a file-write line writes, one entry per placement checked. */
export const WRITE_TARGETS = {
  inside: `${TASK_DIR}/out.txt`,
  hook: `${TASK_DIR}/.git/hooks/pre-commit`,
  outside: '/tmp/outside/.bashrc',
} as const;
export type Placement = keyof typeof WRITE_TARGETS;

export interface GtfoLine {
  /** `tar:shell:2` or `tar:file-write:0:hook`: program, function, number in that function, placement. */
  id: string;
  program: string;
  fn: string;
  /** `sudo`, `suid`, `capabilities` when the line is a context's own variant. */
  context: string | null;
  /** The snippet as a shell command line, placeholders replaced. */
  command: string;
  /** file-write only: the path it writes. */
  target?: string;
  placement?: Placement;
}

/**
 * Every `/path/to/NAME` on the target machine (`open:/path/to/x`, `PATH=$PATH:/path/to/x`),
 * not one on the attacker's (`user@attacker.com:/path/to/x`, `http://attacker.com/path/to/x`).
 */
const LOCAL_PATH = /(?<![A-Za-z0-9]|attacker\.com:)\/path\/to\/([A-Za-z0-9_.-]+)/g;
const OUTPUT = /^(output-file|ouput-file|OUTPUT)$/;

function substitute(code: string, target: string): string {
  return code.replace(LOCAL_PATH, (_m, name: string) => (OUTPUT.test(name) ? target : `${TASK_DIR}/${name}`));
}

interface Snippet {
  fn: string;
  context: string | null;
  code: string;
}

/**
 * The `code: |-` blocks of one file's front matter: each function's items (`  - code:`, the
 * item's own keys at 4 spaces) and their context variants (`      suid:` then `        code:`).
 * The `sender:`/`receiver:` blocks (code at 6 spaces) run on the attacker's box: left out.
 */
export function snippetsOf(text: string): Snippet[] {
  const lines = text.split('\n');
  const out: Snippet[] = [];
  let fn: string | null = null;
  let context: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const f = /^ {2}([a-z-]+):$/.exec(line);
    if (f) {
      fn = f[1]!;
      continue;
    }
    const ctx = /^ {6}([a-z-]+):/.exec(line);
    if (ctx) context = ctx[1]!;
    if (/^ {2}- /.test(line)) context = null;
    const m = /^( *)(- )?code: \|-$/.exec(line);
    if (!m || fn === null) continue;
    const keyIndent = m[1]!.length + (m[2] ? 2 : 0);
    const body: string[] = [];
    const pad = ' '.repeat(keyIndent + 2);
    while (i + 1 < lines.length && (lines[i + 1]!.startsWith(pad) || lines[i + 1]!.trim() === '')) body.push(lines[++i]!.slice(pad.length));
    while (body.length && body[body.length - 1]!.trim() === '') body.pop();
    if (keyIndent === 4) out.push({ fn, context: null, code: body.join('\n') });
    else if (keyIndent === 8) out.push({ fn, context, code: body.join('\n') });
  }
  return out;
}

/** The GTFOBins files at GTFOBINS_COMMIT: name → text; or why there are none here. */
function readFiles(): Map<string, string> | string {
  const copy = process.env.AIRLOCK_GTFOBINS || DEFAULT_COPY;
  if (!existsSync(copy)) return `no copy of GTFOBins at ${copy} (set AIRLOCK_GTFOBINS to a clone of github.com/GTFOBins/GTFOBins.github.io; its GPL-3.0 lines are not checked in)`;
  const files = new Map<string, string>();
  if (existsSync(path.join(copy, '_gtfobins'))) {
    for (const name of readdirSync(path.join(copy, '_gtfobins'))) files.set(name, readFileSync(path.join(copy, '_gtfobins', name), 'utf8'));
    return files;
  }
  const git = (...args: string[]) => execFileSync('git', ['--git-dir', copy, ...args], { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    git('cat-file', '-e', `${GTFOBINS_COMMIT}^{commit}`);
  } catch {
    return `the copy at ${copy} lacks commit ${GTFOBINS_COMMIT}, which the exceptions were triaged against`;
  }
  const names = git('ls-tree', '--name-only', `${GTFOBINS_COMMIT}:_gtfobins`).split('\n').filter(Boolean);
  // One `git cat-file --batch` for all of them: 478 `git show` would cost seconds.
  const input = names.map((n) => `${GTFOBINS_COMMIT}:_gtfobins/${n}`).join('\n') + '\n';
  const raw = execFileSync('git', ['--git-dir', copy, 'cat-file', '--batch'], { input, maxBuffer: 64 << 20 });
  let at = 0;
  for (const name of names) {
    const nl = raw.indexOf(10, at);
    const size = Number(/ (\d+)$/.exec(raw.subarray(at, nl).toString())?.[1]);
    files.set(name, raw.subarray(nl + 1, nl + 1 + size).toString('utf8'));
    at = nl + 1 + size + 1;
  }
  return files;
}

/** Every snippet of GTFOBins as a command line; a file-write once per placement. */
export function loadGtfobins(): GtfoLine[] | string {
  const files = readFiles();
  if (typeof files === 'string') return files;
  const out: GtfoLine[] = [];
  for (const [program, text] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    const seen = new Map<string, number>();
    for (const s of snippetsOf(text)) {
      const n = seen.get(s.fn) ?? 0;
      seen.set(s.fn, n + 1);
      const base = { program, fn: s.fn, context: s.context };
      if (s.fn === 'file-write' && /\/path\/to\/(output-file|ouput-file|OUTPUT)\b/.test(s.code)) {
        for (const placement of Object.keys(WRITE_TARGETS) as Placement[]) {
          const target = WRITE_TARGETS[placement];
          out.push({ ...base, id: `${program}:${s.fn}:${n}:${placement}`, command: substitute(s.code, target), target, placement });
        }
      } else {
        out.push({ ...base, id: `${program}:${s.fn}:${n}`, command: substitute(s.code, WRITE_TARGETS.inside) });
      }
    }
  }
  return out;
}
