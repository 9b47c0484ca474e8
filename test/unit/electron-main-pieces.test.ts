// The security-relevant pieces of main/electron, run under plain Node with a stand-in for
// the 'electron' module (the binary is not needed to check this logic): the IPC handler
// refuses senders that are not the airlock://app/ top frame, unknown methods and bad
// params; the protocol handler serves only files under the renderer dir, with the CSP.
// The whole app runs for real in test/e2e/electron.test.ts where Electron exists.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { approverMethods } from '../../main/contract/approver';
import { createDispatch, type Handlers } from '../../main/api/dispatch';
import { RPC, RpcError } from '../../main/contract/rpc';

type Handler = (...args: unknown[]) => unknown;
const ipcHandlers = new Map<string, Handler>();
const protocolHandlers = new Map<string, (req: Request) => Promise<Response>>();
const loginItems: unknown[] = [];
const notices: { title: string; body: string }[] = [];
class NotificationStandIn {
  static isSupported = () => true;
  constructor(private readonly o: { title: string; body: string }) {}
  show() {
    notices.push(this.o);
  }
}
/** What a pop-up window was asked to do (show, focus, showInactive …), in order. */
const windowCalls: string[] = [];
class BrowserWindowStandIn {
  private readonly once_ = new Map<string, () => void>();
  constructor(readonly opts: Record<string, unknown>) {}
  once(ev: string, fn: () => void) {
    this.once_.set(ev, fn);
  }
  on() {}
  fire(ev: string) {
    this.once_.get(ev)?.();
  }
  loadURL() {
    return Promise.resolve();
  }
  isDestroyed() {
    return false;
  }
  setAlwaysOnTop() {}
  setVisibleOnAllWorkspaces() {}
  show() {
    windowCalls.push('show');
  }
  showInactive() {
    windowCalls.push('showInactive');
  }
  focus() {
    windowCalls.push('focus');
  }
}
const stand_in = {
  Notification: NotificationStandIn,
  BrowserWindow: BrowserWindowStandIn,
  screen: { getPrimaryDisplay: () => ({ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }) },
  app: { setLoginItemSettings: (s: unknown) => loginItems.push(s) },
  ipcMain: {
    handle: (channel: string, fn: Handler) => ipcHandlers.set(channel, fn),
    removeHandler: (channel: string) => ipcHandlers.delete(channel),
  },
  protocol: {
    registerSchemesAsPrivileged: () => undefined,
    handle: (scheme: string, fn: (req: Request) => Promise<Response>) => protocolHandlers.set(scheme, fn),
  },
};
const electronId = require.resolve('electron');
require.cache[electronId] = { id: electronId, filename: electronId, loaded: true, exports: stand_in, children: [], paths: [] } as unknown as NodeJS.Module;

// Loaded after the stand-in is in place.
const { serveContractOverIpc } = require('../../main/electron/contract-ipc') as typeof import('../../main/electron/contract-ipc');
const { handleAppProtocol } = require('../../main/electron/app-protocol') as typeof import('../../main/electron/app-protocol');
const { INVOKE_CHANNEL } = require('../../preload/ipc-protocol') as typeof import('../../preload/ipc-protocol');
const { applyStartAtLogin } = require('../../main/electron/login-item') as typeof import('../../main/electron/login-item');
const { notifyIfGrantAllowed } = require('../../main/electron/desktop-notify') as typeof import('../../main/electron/desktop-notify');
const { Windows } = require('../../main/electron/windows') as typeof import('../../main/electron/windows');

const calls: { method: string; params: unknown }[] = [];
const handlers = Object.fromEntries(
  Object.keys(approverMethods).map((m) => [
    m,
    async (params: unknown) => {
      calls.push({ method: m, params });
      return { ok: m };
    },
  ]),
) as unknown as Handlers<typeof approverMethods>;

function event(url: string, top = true) {
  return { senderFrame: { url, parent: top ? null : {} }, sender: {} };
}

test('IPC: only the top frame of airlock://app/ may call, only contract methods, only valid params', async () => {
  serveContractOverIpc(createDispatch(approverMethods, handlers));
  const invoke = ipcHandlers.get(INVOKE_CHANNEL)!;
  assert.ok(invoke);
  const ok = (await invoke(event('airlock://app/index.html'), 'settings.get', {})) as { ok: boolean; result?: unknown };
  assert.deepEqual(ok, { ok: true, result: { ok: 'settings.get' } });

  for (const url of ['https://evil.example/', 'file:///etc/passwd', 'airlock://other/index.html', 'http://127.0.0.1:1234/']) {
    const r = (await invoke(event(url), 'settings.get', {})) as { ok: boolean; error?: { code: number } };
    assert.equal(r.ok, false, url);
  }
  const sub = (await invoke(event('airlock://app/index.html', false), 'settings.get', {})) as { ok: boolean };
  assert.equal(sub.ok, false, 'a subframe is refused');
  const nullFrame = (await invoke({ senderFrame: null, sender: {} }, 'settings.get', {})) as { ok: boolean };
  assert.equal(nullFrame.ok, false, 'a destroyed frame is refused');

  const unknown = (await invoke(event('airlock://app/'), 'request', { source: 'api' })) as { ok: boolean; error: { code: number } };
  assert.deepEqual([unknown.ok, unknown.error.code], [false, -32601]);
  const bad = (await invoke(event('airlock://app/'), 'pending.decide', { id: 'p', decision: 'yes', scope: 'once' })) as { ok: boolean; error: { code: number; message: string } };
  assert.deepEqual([bad.ok, bad.error.code], [false, -32602]);
  assert.match(bad.error.message, /decision/);
  const extra = (await invoke(event('airlock://app/'), 'grants.revoke', { id: 'g', also: 'x' })) as { ok: boolean };
  assert.equal(extra.ok, false, 'unknown keys are refused');
  const notString = (await invoke(event('airlock://app/'), { toString: () => 'settings.get' }, {})) as { ok: boolean };
  assert.equal(notString.ok, false);
  assert.deepEqual(
    calls.map((c) => c.method),
    ['settings.get'],
    'nothing but the one valid call reached the service',
  );
});

test('IPC: rejected calls are recorded by the same rule as the sockets; answers from the service are not', async () => {
  const rows: { source: string; tool: string; summary: string; reason: string }[] = [];
  const failing = { ...handlers, 'grants.revoke': async () => Promise.reject(new RpcError(RPC.notFound, 'no grant g')) } as typeof handlers;
  const stop = serveContractOverIpc(createDispatch(approverMethods, failing), { onReject: (r) => rows.push(r) });
  try {
    const invoke = ipcHandlers.get(INVOKE_CHANNEL)!;
    await invoke(event('https://evil.example/'), 'settings.get', {});
    await invoke(event('airlock://app/'), 'no.such', {});
    await invoke(event('airlock://app/'), 'pending.decide', { id: 'p', decision: 'yes', scope: 'once' });
    await invoke(event('airlock://app/'), 42, {});
    const notFound = (await invoke(event('airlock://app/'), 'grants.revoke', { id: 'g' })) as { ok: boolean; error: { code: number } };
    assert.deepEqual([notFound.ok, notFound.error.code], [false, RPC.notFound]);
    assert.deepEqual(
      rows.map((r) => [r.source, r.tool, r.summary]),
      [
        ['electron', 'settings.get', 'rejected "settings.get" call on Electron IPC'],
        ['electron', 'no.such', 'rejected "no.such" call on Electron IPC'],
        ['electron', 'pending.decide', 'rejected "pending.decide" call on Electron IPC'],
        ['electron', '(unparsed)', 'rejected call on Electron IPC'],
      ],
    );
    assert.match(rows[0]!.reason, /not the Airlock renderer/);
  } finally {
    stop();
  }
});

test('protocol: files under the renderer dir only, with the CSP', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'al-app-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>t</title>');
  fs.writeFileSync(path.join(dir, 'assets', 'a.js'), 'console.log(1)');
  fs.writeFileSync(path.join(path.dirname(dir), 'secret.txt'), 'secret');
  handleAppProtocol(dir);
  const handle = protocolHandlers.get('airlock')!;
  const index = await handle(new Request('airlock://app/index.html'));
  assert.equal(index.status, 200);
  assert.match(index.headers.get('content-security-policy') ?? '', /default-src 'none'; script-src 'self'/);
  assert.equal(index.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.equal((await handle(new Request('airlock://app/assets/a.js'))).headers.get('content-type'), 'text/javascript; charset=utf-8');
  for (const u of ['airlock://app/../secret.txt', 'airlock://app/%2e%2e/secret.txt', 'airlock://app/assets/%2e%2e/%2e%2e/secret.txt', 'airlock://other/index.html']) {
    const r = await handle(new Request(u));
    assert.equal(r.status, 404, u);
  }
  assert.equal((await handle(new Request('airlock://app/index.html', { method: 'POST', body: 'x' }))).status, 404);
});

test('start at login: an XDG autostart entry on Linux, the login item elsewhere', { skip: process.platform !== 'linux' ? 'Linux-only path' : false }, () => {
  const config = fs.mkdtempSync(path.join(os.tmpdir(), 'al-xdg-'));
  const saved = process.env.XDG_CONFIG_HOME;
  process.env.XDG_CONFIG_HOME = config;
  try {
    const file = path.join(config, 'autostart', 'airlock.desktop');
    applyStartAtLogin(true);
    const entry = fs.readFileSync(file, 'utf8');
    assert.match(entry, /^\[Desktop Entry\]$/m);
    assert.match(entry, /^Exec=".+" --hidden$/m);
    applyStartAtLogin(false);
    assert.equal(fs.existsSync(file), false);
    assert.deepEqual(loginItems, [], 'Linux does not use app.setLoginItemSettings');
  } finally {
    if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = saved;
  }
});

test('desktop notification: the agent\'s escapes and bidi overrides are shown escaped', () => {
  const e = { action: 'write', decision: 'allow', decidedBy: 'grant', summary: 'write \x1b]0;pwned\x07 evil\u202etxt.sh', resource: '/tmp/\u200bx' } as unknown as Parameters<typeof notifyIfGrantAllowed>[0];
  notifyIfGrantAllowed(e, true);
  assert.equal(notices.length, 1);
  assert.equal(notices[0]!.body, 'write \\x1b]0;pwned\\x07 evil\\u202etxt.sh\n/tmp/\\u200bx');
  assert.doesNotMatch(notices[0]!.body, /[\u001b\u0007\u202e\u200b]/);
  notifyIfGrantAllowed({ ...e, decidedBy: 'human' } as typeof e, true);
  assert.equal(notices.length, 1, 'only grant-allowed actions are announced');
});

test('pop-up: shown on top without taking the keyboard from the app the human is typing in', () => {
  const w = new Windows('/preload.js');
  const prompt = { id: 'p_focus', action: 'write', summary: 'write x' } as unknown as Parameters<typeof w.openPrompt>[0];
  w.openPrompt(prompt);
  const [win] = w.all() as unknown as BrowserWindowStandIn[];
  assert.ok(win, 'a pop-up was made');
  assert.equal(win.opts.show, false, 'created hidden: nothing is on screen (or takes input) before it is ready');
  assert.deepEqual(windowCalls, [], 'not shown before ready-to-show');
  win.fire('ready-to-show');
  assert.deepEqual(windowCalls, ['showInactive'], 'shown inactive: no show(), no focus()');
});
