// "Who" is the agent (issue 11 item 3): the process that connected to Airlock is often
// Airlock's own CLI (`airlock exec`, the Claude Code hook, node running it, the shell
// Claude Code starts the hook with). Those are skipped, nearest first, and what remains
// (`bash`, `claude`, …) is shown with each process's full command line. The full tree is
// still kept in history; this only chooses what the prompt puts first.
import * as path from 'node:path';
import type { ProcessInfo, ProcessNode } from '../contract/common';
import { shellWord } from '../../shared/shell-word';

/** Where this Airlock is installed: its bin and dist folders (the daemon knows, the agent does not choose). */
export interface OwnInstall {
  /** Absolute paths of Airlock's entry points and folders; argv words inside one of them are Airlock's. */
  roots: string[];
}

function inside(p: string, root: string): boolean {
  if (!p.startsWith('/')) return false;
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh']);

/** Whether a process is Airlock's own: `airlock …`, `node …/airlock/dist/…`, or `sh -c "airlock hook …"`. */
export function isOwnProcess(n: ProcessNode, own: OwnInstall, depth = 0): boolean {
  const words = n.argv.length ? n.argv : n.exe ? [n.exe] : [];
  const first = words[0] ?? '';
  if (path.basename(first) === 'airlock') return true;
  // An interpreter running a script of ours: node /opt/airlock/bin/airlock exec …
  const script = words.slice(1).find((w) => !w.startsWith('-'));
  if (/^(node|nodejs|electron|airlock)$/.test(path.basename(first)) && script && (path.basename(script) === 'airlock' || own.roots.some((r) => inside(script, r)))) return true;
  if (own.roots.some((r) => inside(first, r))) return true;
  // The shell Claude Code runs a hook command with: `sh -c 'airlock hook claude-code'`.
  // Its script is read as a command line of its own (`airlock hook …`, `node …/bin.js < in`).
  if (depth === 0 && SHELLS.has(path.basename(first)) && words[1] === '-c' && words[2]) {
    const argv = words[2].trim().split(/\s+/).filter((w) => !/^[<>|&;]/.test(w)).slice(0, 8);
    if (argv.length && isOwnProcess({ pid: n.pid, exe: null, argv }, own, 1)) return true;
  }
  return false;
}

/**
 * The agent's side of the process tree, nearest first: Airlock's own processes at the near
 * end are dropped. When every process is Airlock's (or the tree is unknown) it is empty.
 */
export function agentChain(info: ProcessInfo | undefined, own: OwnInstall): ProcessNode[] {
  if (!info) return [];
  let i = 0;
  while (i < info.tree.length && isOwnProcess(info.tree[i]!, own)) i++;
  return info.tree.slice(i);
}

/** A process's full command line as one line (argv joined; the exe when argv is unknown). */
export function commandLineOf(n: ProcessNode, max = 400): string {
  const words = n.argv.length ? n.argv : [n.exe ?? String(n.pid)];
  const text = words.map(shellWord).join(' ');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
