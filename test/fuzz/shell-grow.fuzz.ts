// Fuzz target (issue 10): grow commands from the read-only corpus by ONE addition — a
// flag, a VAR=value prefix or a wrapper — and check the classifier never calls the
// result less severe than the bare command, and never a read when the addition is one
// that makes it something else:
//   - an unknown flag (`--zq…`) or a flag the allowlist lists as dangerous → not read
//     (programs whose options are plain words, like echo, excepted);
//   - a prefix outside the harmless list (PATH=, LD_PRELOAD=, GIT_DIR=, FOO= …) → execute;
//   - a wrapper that runs its argument (env, time, nice, timeout, sudo, watch, eval …) → execute.
// Bases that are not reads (rm, curl, git push …) are grown too: a wrapped `rm` must stay
// at least a delete. Deterministic for a seed; every failure names its input.
import { classifyShell } from '../../main/core/classify/shell';
import { READ_FORMS } from '../../main/core/classify/sh-readonly';
import { ACTION_RANK } from '../../main/contract/constants';
import { READS } from '../unit/classify-allowlist-rows';
import { clipText, prng, type FuzzFailure, type FuzzOptions, type FuzzReport, type Rng } from './lib';

const CWD = '/repo';

/** Non-read bases: growing them must never make them less severe. */
const OTHER_BASES = ['rm -rf build', 'rm f', 'curl -s https://x.example', 'git push origin main', 'mv a b', 'cp a b', 'touch f', 'chmod +x f', 'npm install', 'make', 'git commit -m x', 'tar -xzf a.tgz', 'sort -o F f', 'find . -delete'];

const DANGER_PREFIXES = ['PATH=/tmp/evil', 'LD_PRELOAD=/tmp/x.so', 'BASH_ENV=/tmp/x', 'ENV=/tmp/x', 'GIT_DIR=/tmp/x', 'GIT_CONFIG_COUNT=1', 'PAGER=./x', 'EDITOR=./x', 'IFS=/', 'HOME=/tmp', 'FOO=1', 'TAR_OPTIONS=-x', 'RIPGREP_CONFIG_PATH=./rc', 'LESSOPEN=|x', 'NODE_OPTIONS=-r./x', 'PS4=$(id)', 'LC_ALL=../x'];
const HARMLESS_PREFIXES = ['LANG=C', 'LC_ALL=C', 'TZ=UTC', 'NO_COLOR=1', 'COLUMNS=100'];
/** Wrappers that run their argument: the result is execute whatever the base. */
const EXEC_WRAPPERS = ['env', 'env -i', 'env FOO=1', 'time', 'nice', 'nice -n 5', 'timeout 5', 'nohup', 'setsid', 'stdbuf -oL', 'sudo', 'doas', 'command', 'builtin', 'exec', 'busybox', 'watch', 'flock /tmp/l', 'chroot /', 'strace', 'ionice -c3'];
/** Wrappers around the whole text: never less than the base. */
const TEXT_WRAPPERS: [string, boolean][] = [
  ["sh -c '%'", false],
  ["bash -c '%'", false],
  ["eval '%'", true],
  ["env -S '%'", true],
  ["zsh -c '%'", true],
  ["bash -O extglob -c '%'", true],
  ["su -c '%'", true],
];
/** Option words no program of the allowlist takes. */
const UNKNOWN = () => ['--zq', '-Ø', '--output-evil', '--pre-x', '--zz-run'];
/** Programs whose options are plain words (echo -----, cd -, seq -5): an unknown flag may stay a read there. */
const WORD_OPTIONS = new Set(['cd', 'pushd', 'popd']);

type Kind = 'unknown-flag' | 'danger-flag' | 'prefix' | 'harmless-prefix' | 'wrapper' | 'text-wrapper';

interface Grown {
  cmd: string;
  kind: Kind;
  /** The least action the result may have. */
  atLeast: 'read' | 'not-read' | 'execute';
}

function words(cmd: string): string[] {
  return cmd.split(' ');
}

/**
 * Right after the program name (or after git's subcommand): anywhere else the new word
 * could land between an option and its value (`find . -name --zq x`), where it is data.
 */
function insertAt(r: Rng, ws: string[]): number {
  if (ws[0] === 'git' && ws[1] && !ws[1].startsWith('-') && r.chance(0.5)) return 2;
  return 1;
}

function dangerFlags(name: string): string[] {
  const form = READ_FORMS[name];
  if (!form?.danger) return [];
  return Object.entries(form.danger).map(([f, d]) => (d.takesValue ? `${f} /tmp/out` : f));
}

function grow(r: Rng, base: string): Grown {
  const ws = words(base);
  const name = ws[0] ?? '';
  switch (r.int(6)) {
    case 0: {
      const at = insertAt(r, ws);
      const flag = r.chance(0.5) ? r.pick(UNKNOWN()) : `--${'abcdefghijklmnopqrstuvwxyz'[r.int(26)]}z${r.int(1000)}`;
      const form = READ_FORMS[name];
      const wordOptions = WORD_OPTIONS.has(name) || !!form?.anyFlags;
      return { cmd: [...ws.slice(0, at), flag, ...ws.slice(at)].join(' '), kind: 'unknown-flag', atLeast: wordOptions ? 'read' : 'not-read' };
    }
    case 1: {
      const flags = dangerFlags(name);
      if (flags.length === 0) return grow(r, base);
      const at = insertAt(r, ws);
      return { cmd: [...ws.slice(0, at), r.pick(flags), ...ws.slice(at)].join(' '), kind: 'danger-flag', atLeast: 'not-read' };
    }
    case 2:
      return { cmd: `${r.pick(DANGER_PREFIXES)} ${base}`, kind: 'prefix', atLeast: 'execute' };
    case 3:
      return { cmd: `${r.pick(HARMLESS_PREFIXES)} ${base}`, kind: 'harmless-prefix', atLeast: 'read' };
    case 4:
      return { cmd: `${r.pick(EXEC_WRAPPERS)} ${base}`, kind: 'wrapper', atLeast: 'execute' };
    default: {
      const [tpl, opaque] = r.pick(TEXT_WRAPPERS);
      if (base.includes("'")) return grow(r, base);
      return { cmd: tpl.replace('%', base), kind: 'text-wrapper', atLeast: opaque ? 'execute' : 'read' };
    }
  }
}

const rank = (a: string) => ACTION_RANK[a as keyof typeof ACTION_RANK] ?? -1;

export async function fuzz(opts: FuzzOptions): Promise<FuzzReport> {
  const t0 = Date.now();
  const deadline = t0 + opts.seconds * 1000;
  const r = prng(opts.seed);
  const failures: FuzzFailure[] = [];
  const stats: Record<string, number> = {};
  // Simple bases only (one command, words split by single spaces): the additions go where
  // the shell would see them. Compound reads are grown by prefixes and wrappers.
  const reads = READS.map((x) => x.cmd).filter((c) => classifyShell(c, CWD).action === 'read');
  const bases = [...reads, ...OTHER_BASES];
  const baseAction = new Map(bases.map((b) => [b, classifyShell(b, CWD).action]));
  const max = opts.maxIterations ?? 1e9;
  let i = 0;
  for (; i < max && Date.now() < deadline && failures.length < 20; i++) {
    const base = r.pick(bases);
    const g = grow(r, base);
    const c = classifyShell(g.cmd, CWD);
    const before = baseAction.get(base)!;
    stats[`${g.kind}:${c.action}`] = (stats[`${g.kind}:${c.action}`] ?? 0) + 1;
    const bad = (message: string) => failures.push({ kind: 'less severe', message: `${g.kind}: ${message}`, input: clipText(JSON.stringify({ base, grown: g.cmd }), 2000) });
    if (rank(c.action) < rank(before)) bad(`${c.action} is less severe than the bare command's ${before}`);
    else if (g.atLeast === 'not-read' && (c.action === 'read' || c.action === 'other')) bad(`still ${c.action}`);
    else if (g.atLeast === 'execute' && c.action !== 'execute') bad(`${c.action}, expected execute`);
    // The reason is what the human sees: a non-read grown from a read says why.
    else if (before === 'read' && c.action !== 'read' && c.riskReasons.length === 0 && !c.parts.some((p) => p.action !== 'read')) bad(`${c.action} without a reason`);
    if (i % 64 === 0) await new Promise((res) => setImmediate(res));
  }
  opts.log?.(`shell-grow: ${i} commands grown from ${bases.length} bases, ${failures.length} failures`);
  return { target: 'shell-grow', seed: opts.seed, iterations: i, ms: Date.now() - t0, failures, stats };
}
