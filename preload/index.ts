// Preload (sandboxed, context-isolated): exposes `window.airlock` — exactly the methods of
// the ApproverService contract plus onNotification — and nothing else. No raw ipcRenderer,
// no IPC event objects ever reach the page.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { ApproverMethod, ApproverNotification } from '../main/contract/approver';
import { INVOKE_CHANNEL, NOTIFY_CHANNEL, type IpcReply } from './ipc-protocol';
import { APPROVER_METHOD_NAMES } from '../shared/approver-methods';
import type { AirlockBridge } from './types';

export type * from './types';

/** An error the page can inspect: same shape as JSON-RPC errors on the sockets. */
class AirlockError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'AirlockError';
  }
}

async function invoke(method: ApproverMethod, params: unknown): Promise<unknown> {
  const reply = (await ipcRenderer.invoke(INVOKE_CHANNEL, method, params ?? {})) as IpcReply;
  if (reply.ok) return reply.result;
  throw new AirlockError(reply.error.code, reply.error.message);
}

function buildBridge(): AirlockBridge {
  const bridge: Record<string, unknown> = {};
  // Generated from the contract's method names: adding a method to the table adds it here.
  for (const method of APPROVER_METHOD_NAMES) {
    bridge[method] = (params: unknown) => invoke(method, params);
  }
  bridge.onNotification = (cb: (n: ApproverNotification) => void): (() => void) => {
    if (typeof cb !== 'function') throw new TypeError('onNotification needs a function');
    // Only the payload crosses: the IpcRendererEvent (with its sender) stays here.
    const listener = (_event: IpcRendererEvent, n: ApproverNotification) => cb(n);
    ipcRenderer.on(NOTIFY_CHANNEL, listener);
    return () => {
      ipcRenderer.removeListener(NOTIFY_CHANNEL, listener);
    };
  };
  return Object.freeze(bridge) as unknown as AirlockBridge;
}

contextBridge.exposeInMainWorld('airlock', buildBridge());
