// validatedIpcMain: the ApproverService over Electron IPC. One invoke channel; the sender
// frame must be our renderer (airlock://app/), the method must be in the contract's table
// and its params pass the table's zod schema (createDispatch validates), or nothing runs.
// Calls take the one JSON-RPC path (main/api/rpc-message.ts), so a rejected call is
// recorded by the same rule as on every socket (at most 20 a minute).
import { ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import { RPC } from '../contract/rpc';
import type { Dispatch } from '../api/dispatch';
import { handleRpcRequest, rateLimited, rejectionRow, type RpcRejection } from '../api/rpc-message';
import type { NotificationSource, RejectedAttempt } from '../core/ports';
import { INVOKE_CHANNEL, NOTIFY_CHANNEL, type IpcReply } from '../../preload/ipc-protocol';
import { isAppUrl } from './app-protocol';

export function isTrustedSender(event: IpcMainInvokeEvent): boolean {
  const frame = event.senderFrame;
  // Only the top frame of our own pages: no iframes (CSP forbids them anyway), no other origins.
  return frame !== null && frame.parent === null && isAppUrl(frame.url);
}

export interface IpcOptions {
  /** Records a rejected call, by the one rule of main/api/rpc-message.ts. */
  onReject?(r: RejectedAttempt): void;
  /** Runs after a call succeeded (e.g. applying start-at-login once settings.set returns). */
  after?(method: string, result: unknown): void;
}

export function serveContractOverIpc(dispatch: Dispatch, opts: IpcOptions = {}): () => void {
  const record = rateLimited(opts.onReject);
  const onReject = (r: RpcRejection) => record(rejectionRow('electron', 'Electron IPC', 'call', r));
  ipcMain.handle(INVOKE_CHANNEL, async (event, method: unknown, params: unknown): Promise<IpcReply> => {
    const raw = { method: typeof method === 'string' ? method.slice(0, 128) : typeof method, params };
    // The same path as every socket: validated as a JSON-RPC call, admitted only from our
    // renderer, dispatched through the contract's table; rejections recorded the same way.
    const reply = await handleRpcRequest({ jsonrpc: '2.0', id: 0, method, params }, raw, dispatch, {
      onReject,
      admit: () => (isTrustedSender(event) ? null : 'IPC refused: the sender is not the Airlock renderer'),
    });
    if (!reply || reply.error) return { ok: false, error: reply?.error ? { code: reply.error.code, message: reply.error.message } : { code: RPC.internal, message: 'internal error: no reply' } };
    opts.after?.(method as string, reply.result);
    return { ok: true, result: reply.result };
  });
  return () => ipcMain.removeHandler(INVOKE_CHANNEL);
}

/** Pushes every notification to every Airlock window (the preload strips the event object). */
export function broadcastNotifications(source: NotificationSource, windows: () => BrowserWindow[]): () => void {
  return source.subscribe((n) => {
    for (const w of windows()) {
      if (!w.isDestroyed() && isAppUrl(w.webContents.getURL())) w.webContents.send(NOTIFY_CHANNEL, n);
    }
  });
}
