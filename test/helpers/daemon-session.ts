// The usual set-up of an integration test: the real daemon, an agent-side client on the
// shared request.sock, and a scripted human on ui.sock.
import type { RpcClient } from '../../main/client/rpc-client';
import { startDaemon, type Daemon } from './daemon';
import { Human } from './human';

export interface DaemonSession {
  d: Daemon;
  ui: RpcClient;
  agent: RpcClient;
  human: Human;
}

export async function openDaemonSession(): Promise<DaemonSession> {
  const d = await startDaemon();
  const ui = await d.ui();
  const agent = await d.agent();
  return { d, ui, agent, human: await Human.on(ui) };
}

/** Closes what was opened; safe after a set-up that failed half way. */
export async function closeDaemonSession(s: Partial<DaemonSession>): Promise<void> {
  s.agent?.close();
  s.ui?.close();
  await s.d?.stop();
}
