// validatedIpcMain: the ApproverService over Electron IPC. One invoke channel; the sender
// frame must be our renderer (airlock://app/), the method must be in the contract's table
// and its params pass the table's zod schema (createDispatch validates), or nothing runs.
import { ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import { RPC, RpcError } from '../contract/rpc';
import type { Dispatch } from '../api/dispatch';
import type { NotificationSource } from '../core/ports';
import { INVOKE_CHANNEL, NOTIFY_CHANNEL, type IpcReply } from '../../preload/ipc-protocol';
import { isAppUrl } from './app-protocol';

export function isTrustedSender(event: IpcMainInvokeEvent): boolean {
  const frame = event.senderFrame;
  // Only the top frame of our own pages: no iframes (CSP forbids them anyway), no other origins.
  return frame !== null && frame.parent === null && isAppUrl(frame.url);
}

export function serveContractOverIpc(dispatch: Dispatch, after?: (method: string, result: unknown) => void): () => void {
  ipcMain.handle(INVOKE_CHANNEL, async (event, method: unknown, params: unknown): Promise<IpcReply> => {
    if (!isTrustedSender(event)) {
      return { ok: false, error: { code: RPC.invalidRequest, message: 'IPC refused: the sender is not the Airlock renderer' } };
    }
    if (typeof method !== 'string') return { ok: false, error: { code: RPC.invalidRequest, message: 'invalid request: method must be a string' } };
    try {
      const result = await dispatch(method, params);
      after?.(method, result);
      return { ok: true, result };
    } catch (e) {
      if (e instanceof RpcError) return { ok: false, error: { code: e.code, message: e.message } };
      return { ok: false, error: { code: RPC.internal, message: `internal error: ${(e as Error)?.message ?? String(e)}` } };
    }
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
