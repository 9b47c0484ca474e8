// The wire between preload and main/electron: one invoke channel for every contract
// method, one push channel for notifications. No electron import here, so main/electron
// and the preload share it without either depending on the other's runtime.

/** `ipcRenderer.invoke(INVOKE_CHANNEL, method, params)` → IpcReply. */
export const INVOKE_CHANNEL = 'airlock';
/** `webContents.send(NOTIFY_CHANNEL, notification)`; the preload forwards only the payload. */
export const NOTIFY_CHANNEL = 'airlock:notification';

/**
 * Errors thrown through ipcMain.handle arrive as "Error invoking remote method …" with the
 * code lost, so main answers with an envelope and the preload rethrows a clean error.
 */
export type IpcReply = { ok: true; result: unknown } | { ok: false; error: { code: number; message: string } };
