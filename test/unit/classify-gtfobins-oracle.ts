// The oracle the GTFOBins corpus (classify-gtfobins-corpus.ts) is judged by: what each
// GTFOBins function must look like to the daemon when an agent sends the line as a shell
// command (`airlock exec --shell`, the Claude Code hook's Bash tool) in a task whose
// directory is TASK_DIR. The daemon's own code decides (test/fuzz/classify-write-grants.ts:
// RequestPolicy, the grant "allow for this task" makes, the prompt's suggestion).
import type { GrantProbe } from '../fuzz/classify-write-grants';
import type { GtfoLine } from './classify-gtfobins-corpus';

/** Functions that run a program of the line's choosing: execute, whatever else they do. */
export const EXECUTES = new Set(['shell', 'command', 'reverse-shell', 'bind-shell', 'library-load']);
const TRANSFERS = new Set(['upload', 'download']);

/**
 * Why the daemon's view of `l` is wrong, or null when it is right:
 *   shell, command, reverse-shell, bind-shell, library-load → execute;
 *   upload, download → transfer (or execute);
 *   file-write → a change (write, delete, transfer) naming the file written, or a part
 *     placed nowhere (`unlisted`), or execute; when that file is a git hook or outside the
 *     task, neither a grant on the task's directory nor the prompt's suggestion covers it;
 *   privilege-escalation (chmod 6777, chown, setcap …) → not a read;
 *   file-read, inherit (a pager or editor whose escape needs a human at a terminal) → some
 *     action; reads are what they are.
 */
export function gtfoMiss(l: GtfoLine, probe: GrantProbe): string | null {
  const { req, checks } = probe;
  const a = req.action;
  if (EXECUTES.has(l.fn)) return a === 'execute' ? null : `${a}, not execute`;
  if (TRANSFERS.has(l.fn)) return a === 'transfer' || a === 'execute' ? null : `${a}, not transfer`;
  if (l.fn === 'file-write') {
    if (a === 'read' || a === 'other') return `${a}: the write is not seen`;
    if (a === 'execute') return null;
    const changes = (req.parts ?? []).filter((p) => p.action !== 'read');
    if (l.target && !req.resources.includes(l.target) && !changes.some((p) => p.unlisted)) return `${a} of ${req.resources.join(' ') || 'nothing'}, not of ${l.target}`;
    if (l.placement && l.placement !== 'inside') {
      for (const c of checks) if (c.name !== 'exact' && c.covered) return `the ${c.name} grant (${c.grant.resource}) covers writing ${l.target}`;
    }
    return null;
  }
  if (l.fn === 'privilege-escalation') return a === 'read' || a === 'other' ? `${a}: the change is not seen` : null;
  return a === 'other' ? 'no action' : null;
}

/**
 * The same line running something else in place of its shell: `chrt 1 /bin/sh` →
 * `chrt 1 rm -rf ~`. The grant the prompt suggested for the first must not cover the
 * second (it did: the classifier took the priority 1 for the program, and `~` was not
 * seen). Null when /bin/sh is not a word of its own in the line.
 */
export function sibling(command: string): string | null {
  const re = /(^|[\s;|&])\/bin\/sh(?=$|[\s;|&])/;
  return re.test(command) ? command.replace(re, '$1rm -rf ~') : null;
}
