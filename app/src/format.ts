// Small formatting helpers shared by the views (no React here).
import type { ProcessInfo, ProcessNode } from '../../preload/types';

export function baseName(p: string | null | undefined): string {
  if (!p) return '';
  const parts = p.split(/[\\/]/);
  return parts[parts.length - 1] || p;
}

function nodeName(n: { exe: string | null; argv: string[]; pid: number }): string {
  return baseName(n.argv[0]) || baseName(n.exe) || `pid ${n.pid}`;
}

/**
 * The chain of processes from the session's top down to the one that asked, e.g.
 * `claude → bash → git → ssh`. The core lists the tree leaf-first; we show it root-first
 * because that is how people read "who started what".
 */
export function processChain(p: ProcessInfo): { name: string; node: ProcessNode }[] {
  const self: ProcessNode = { pid: p.pid, exe: p.exe, argv: p.argv };
  let nodes = p.tree.length ? [...p.tree] : [self];
  if (nodes[0]!.pid === p.pid) nodes = nodes.reverse();
  else if (nodes[nodes.length - 1]!.pid !== p.pid) nodes.push(self);
  return nodes.map((node) => ({ name: nodeName(node), node }));
}

export function formatTime(ms: number): string {
  const d = new Date(ms);
  const today = new Date();
  const sameDay = d.toDateString() === today.toDateString();
  const time = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
  if (sameDay) return time;
  const sameYear = d.getFullYear() === today.getFullYear();
  const date = d.toLocaleDateString(undefined, sameYear ? { month: 'short', day: '2-digit' } : { year: 'numeric', month: 'short', day: '2-digit' });
  return `${date} ${sameYear ? time.slice(0, 5) : ''}`.trim();
}

export function formatRelative(ms: number | null, now = Date.now()): string {
  if (ms === null) return 'never';
  const s = Math.round((ms - now) / 1000);
  const abs = Math.abs(s);
  const unit = abs < 60 ? `${abs} s` : abs < 3600 ? `${Math.round(abs / 60)} min` : abs < 86400 ? `${Math.round(abs / 3600)} h` : `${Math.round(abs / 86400)} d`;
  // Under a second either way is now: a key used this instant is not "in 0 s".
  if (abs === 0) return 'just now';
  return s > 0 ? `in ${unit}` : `${unit} ago`;
}


/** Pretty JSON for raw args; never throws (args are whatever the agent sent). */
export function prettyJson(v: unknown): string {
  if (v === undefined) return '(none)';
  try {
    return JSON.stringify(v, null, 2);
  } catch {
    return String(v);
  }
}

/** Parses an <input type="datetime-local"> value (local time) into epoch ms. */
export function parseLocalDateTime(v: string): number | undefined {
  if (!v) return undefined;
  const t = new Date(v).getTime();
  return Number.isNaN(t) ? undefined : t;
}

/**
 * What the Action column shows: the action, except for a task's start or end, whose action is
 * only `other` — the tool (`task.start`, `task.end`) says what happened.
 */
export function actionLabel(e: { action: string; tool: string }): string {
  return e.tool === 'task.start' || e.tool === 'task.end' ? e.tool : e.action;
}
