// Which Claude Code process a hook call comes from, as the daemon sees it: the owner of a
// session → task file (main/integrations/claude-code/hook-service.ts). Claude Code runs its
// hook through a shell (`sh -c`, maybe `env`), so the hook's first ancestor that is not one of
// those is the Claude Code process itself: every hook call of one running session has the same
// one, parallel calls included. Any other process that sends the same session id (an agent's
// script, another session's Bash tool) has its own Claude Code, or no Claude Code, above it:
// a process can never make another session's Claude Code its ancestor. Skipping wrappers
// only ever climbs toward the caller's own parents.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_ANCESTORS, readChainNode, type ProcessChain } from './process-chain';

/**
 * What may sit between Claude Code and its hook: the shell of its hook command, and programs
 * a hook command may be wrapped in (`env -u`, `timeout`, `nice` …). Skipping one only ever
 * climbs toward the caller's own parents, so the list can err on the long side.
 */
const WRAPPER = /^(sh|bash|dash|zsh|ksh|mksh|ash|fish|busybox|env|timeout|nice|nohup|stdbuf|ionice|setsid|chrt|taskset)$/;

/**
 * Package runners start a fresh Node process for every call (`npx airlock hook claude-code`,
 * `npm exec`), so one of them is a wrapper too, never the owner. They are Node running npm's,
 * pnpm's or yarn's script, which npm names in its process title ("npm exec …") or in argv[1].
 */
const PACKAGE_RUNNER = /^(npm|npx|npm-cli|npx-cli|pnpm|pnpx|yarn|yarnpkg)(\.c?js|\.mjs)?$/;

function isPackageRunner(pid: number): boolean {
  let argv: string[];
  try {
    argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0');
  } catch {
    return false;
  }
  const first = path.basename((argv[0] ?? '').trim().split(/\s+/)[0] ?? '');
  return PACKAGE_RUNNER.test(first) || PACKAGE_RUNNER.test(path.basename(argv[1] ?? ''));
}

function exeName(pid: number): string | null {
  try {
    return path.basename(fs.readlinkSync(`/proc/${pid}/exe`));
  } catch {
    return null;
  }
}

/**
 * `<pid>@<start time>` of the first ancestor of the process `chain` starts at that is not a
 * shell or wrapper (a pid alone is reused; with its start time it names one process for good);
 * "none" when the chain ends first; "" where there is no /proc (nothing to tell callers apart:
 * every caller is one owner). The chain is the connection's own (private-socket.ts), so the
 * parents' stat files read for its process tree are not read again.
 */
export function sessionOwnerOf(chain: ProcessChain): string {
  if (!fs.existsSync('/proc/self')) return '';
  for (let i = 1; chain.at(i - 1) && i <= MAX_ANCESTORS; i++) {
    const parent = chain.at(i);
    if (!parent) return 'none';
    const name = exeName(parent.pid);
    const wrapper = name !== null && (WRAPPER.test(name) || (/^node/.test(name) && isPackageRunner(parent.pid)));
    if (!wrapper) return `${parent.pid}@${parent.start ?? '?'}`;
  }
  return 'none';
}

/**
 * Whether the owner `sessionOwnerOf` named still runs: its pid is there with the same start
 * time (a pid alone may have been reused). "", "none" or anything else it cannot check: true
 * (such sessions are kept, and capped per owner, by the hook's session files).
 */
export function sessionOwnerAlive(owner: string): boolean {
  const m = /^(\d{1,10})@(\d{1,20}|\?)$/.exec(owner);
  if (!m || !fs.existsSync('/proc/self')) return true;
  const node = readChainNode(Number(m[1]));
  if (!node) return false;
  return m[2] === '?' || node.start === m[2];
}
