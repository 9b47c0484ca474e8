// The key under which identical pending requests share one prompt (prompt-queue.ts).
import type { Prompt } from '../contract/approver';
import type { Risk } from '../contract/common';
import type { CoreRequest } from './request';

/**
 * Identical requests share one prompt, and one answer answers them all: so identical means
 * identical to the human too (red team of keystroke binding). Besides what is asked, the
 * key holds what the prompt shows about who asks (uid, the programs and command lines of
 * the process chain — pids aside, so a retry from a new hook or exec process still joins),
 * where (cwd) and how risky (a chain rule may have raised the later one: it must not ride
 * on an earlier, milder prompt). An SSH signature also keys on its client process: another
 * ssh client's login, for its own session, never rides on the prompt of this one; nor does a
 * remote's request that came over another ssh connection (the prompt names the connection).
 * A signature through a forwarded agent keys on its agent connection: every client on the
 * far side reaches agent.sock through the one local ssh, one channel (connection) each, so
 * the local ssh process cannot tell them apart (red team: three logins from a server shared
 * one prompt, and one "allow once" signed all three sessions).
 */
export function coalesceKey(r: CoreRequest, risk: Risk, connection: string | undefined): string {
  const p = r.process;
  const who = p ? [p.uid, p.exe, p.argv, p.tree.map((n) => [n.exe, n.argv]), r.source === 'ssh' ? p.pid : null, r.ssh?.forwarded ? (connection ?? null) : null] : null;
  // Also shown on the prompt: where an MCP action came from (the server's annotation, the
  // human's pin, the tool's name) and which ssh connection carried a remote's request.
  return JSON.stringify([r.task, r.source, r.tool, r.action, r.resources, r.summary, r.argsText, r.cwd, risk.level, risk.reasons, who, r.ssh?.fingerprint, r.ssh?.forwarded, r.ssh?.host, r.ssh?.user, r.remote?.name, r.remote?.via, r.actionOrigin]);
}

/**
 * The prompt with `waiting` set to how many requests one answer answers (left out below
 * two), or null when it already says so. An agent that sends the same payment twenty
 * times gets one prompt, and the human must see that "allow once" pays twenty times
 * (black-box wave 11): every UI shows the count and re-arms its input guard when it changes.
 */
export function withWaiting(prompt: Prompt, n: number): Prompt | null {
  if ((prompt.waiting ?? 1) === Math.max(1, n)) return null;
  const next: Prompt = { ...prompt };
  if (n > 1) next.waiting = n;
  else delete next.waiting;
  return next;
}
