// Which answers a prompt offers: friction grows with risk (issue 11 item 5), the same
// rule in every UI (web, Electron, `airlock watch`).
// - critical: Deny or Allow once — no grant, because a grant would never approve it alone
//   and a standing pattern learnt from a critical request is exactly what an attacker wants;
// - high: no "Always" (a task grant or a few minutes at most);
// - "for this task" only when the request belongs to a task;
// - "Always" is never one step: the UIs ask for a second, deliberate confirmation.

export type Choice = 'deny' | 'once' | 'task' | 'duration' | 'always';

export function allowedChoices(p: { risk: { level: string }; task: string | null }): Choice[] {
  if (p.risk.level === 'critical') return ['deny', 'once'];
  const out: Choice[] = ['deny', 'once'];
  if (p.task !== null) out.push('task');
  out.push('duration');
  if (p.risk.level !== 'high') out.push('always');
  return out;
}

/** The exact text the request is about — a command, a file, a URL — shown first, in monospace. */
export function literalOf(p: { args: unknown; resource: string | null; summary: string }): string {
  const a = p.args;
  if (a && typeof a === 'object' && !Array.isArray(a)) {
    const o = a as Record<string, unknown>;
    for (const k of ['command', 'file_path', 'notebook_path', 'path', 'url']) {
      const v = o[k];
      if (typeof v === 'string' && v.trim()) return v;
    }
  }
  return p.resource ?? p.summary;
}
