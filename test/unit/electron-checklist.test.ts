// Electron's security checklist, item by item, against the real files of main/electron and
// preload/ under plain Node (the Electron binary cannot run everywhere the tests do): the
// 'electron' module is a stand-in whose handlers are typed with Electron's own types, so
// every call the test makes has the signature Electron would make it with. What each
// piece does with what Electron hands it is what is checked: which webPreferences every
// window gets, what a navigation, a new window, a <webview>, a permission or a device
// request gets, which URLs a window loads, which IPC channels exist and who may use them,
// what the preload puts on window.airlock. The app itself runs in test/e2e/electron.test.ts
// where Electron exists.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import type {
  BrowserWindowConstructorOptions,
  IpcMainInvokeEvent,
  IpcRendererEvent,
  Session,
  WebContents,
  WebPreferences,
} from 'electron';
import { approverMethods } from '../../main/contract/approver';
import { createDispatch, type Handlers } from '../../main/api/dispatch';
import { REPO } from '../helpers/daemon';

type PermissionRequestHandler = NonNullable<Parameters<Session['setPermissionRequestHandler']>[0]>;
type PermissionCheckHandler = NonNullable<Parameters<Session['setPermissionCheckHandler']>[0]>;
type DevicePermissionHandler = NonNullable<Parameters<Session['setDevicePermissionHandler']>[0]>;
type WindowOpenHandler = Parameters<WebContents['setWindowOpenHandler']>[0];
type InvokeListener = (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown;

// ---- the stand-in 'electron' module -----------------------------------------------------
const appCalls: string[] = [];
const appListeners = new Map<string, (...args: unknown[]) => void>();
const session = {
  permissionRequest: null as PermissionRequestHandler | null,
  permissionCheck: null as PermissionCheckHandler | null,
  devicePermission: null as DevicePermissionHandler | null,
  blocked: [] as string[][],
};
const sessionStandIn = {
  setPermissionRequestHandler: (h: PermissionRequestHandler | null) => void (session.permissionRequest = h),
  setPermissionCheckHandler: (h: PermissionCheckHandler | null) => void (session.permissionCheck = h),
  setDevicePermissionHandler: (h: DevicePermissionHandler | null) => void (session.devicePermission = h),
  webRequest: { onBeforeRequest: (filter: { urls: string[] }) => void session.blocked.push(filter.urls) },
};
const protocolHandlers = new Map<string, (req: Request) => Promise<Response>>();
const ipc = { handle: new Map<string, InvokeListener>(), on: [] as string[] };
/** What the preload did: what it exposed, and what it sent. */
const preload = { exposed: new Map<string, unknown>(), invoked: [] as unknown[][], listeners: new Map<string, (e: IpcRendererEvent, ...a: unknown[]) => void>() };
/** Every window made: its options and every URL it was told to load. */
const windows: { opts: BrowserWindowConstructorOptions; loaded: string[] }[] = [];

class BrowserWindowStandIn {
  readonly record: { opts: BrowserWindowConstructorOptions; loaded: string[] };
  constructor(opts: BrowserWindowConstructorOptions) {
    this.record = { opts, loaded: [] };
    windows.push(this.record);
  }
  loadURL(url: string) {
    this.record.loaded.push(url);
    return Promise.resolve();
  }
  loadFile(file: string) {
    this.record.loaded.push(`loadFile:${file}`);
    return Promise.resolve();
  }
  once() {}
  on() {}
  isDestroyed() {
    return false;
  }
  setAlwaysOnTop() {}
  setVisibleOnAllWorkspaces() {}
  show() {}
  showInactive() {}
  focus() {}
  hide() {}
}

const standIn = {
  app: {
    isPackaged: true,
    on: (ev: string, fn: (...args: unknown[]) => void) => void appListeners.set(ev, fn),
    enableSandbox: () => void appCalls.push('enableSandbox'),
    requestSingleInstanceLock: () => {
      appCalls.push('requestSingleInstanceLock');
      return false; // another instance: main.ts quits before it starts anything
    },
    quit: () => void appCalls.push('quit'),
  },
  session: { defaultSession: sessionStandIn },
  protocol: {
    registerSchemesAsPrivileged: (schemes: { scheme: string; privileges: Record<string, boolean> }[]) => void appCalls.push(`registerSchemesAsPrivileged:${JSON.stringify(schemes)}`),
    handle: (scheme: string, fn: (req: Request) => Promise<Response>) => void protocolHandlers.set(scheme, fn),
  },
  ipcMain: {
    handle: (channel: string, fn: InvokeListener) => void ipc.handle.set(channel, fn),
    removeHandler: (channel: string) => void ipc.handle.delete(channel),
    on: (channel: string) => void ipc.on.push(channel),
  },
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => void preload.exposed.set(key, api) },
  ipcRenderer: {
    invoke: (...args: unknown[]) => {
      preload.invoked.push(args);
      return Promise.resolve({ ok: true, result: { echoed: args[1] } });
    },
    on: (channel: string, fn: (e: IpcRendererEvent, ...a: unknown[]) => void) => void preload.listeners.set(channel, fn),
    removeListener: (channel: string) => void preload.listeners.delete(channel),
  },
  BrowserWindow: BrowserWindowStandIn,
  screen: { getPrimaryDisplay: () => ({ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }) },
  Menu: { buildFromTemplate: () => ({}) },
  Tray: class {},
  dialog: { showErrorBox: () => undefined },
  powerMonitor: { on: () => undefined },
  nativeImage: { createFromBitmap: () => ({}) },
  Notification: class {
    static isSupported = () => false;
  },
  safeStorage: { isEncryptionAvailable: () => false },
};
const electronId = require.resolve('electron');
require.cache[electronId] = { id: electronId, filename: electronId, loaded: true, exports: standIn, children: [], paths: [] } as unknown as NodeJS.Module;

// Loaded after the stand-in is in place.
const { secureWebPreferences, hardenApp } = require('../../main/electron/hardening') as typeof import('../../main/electron/hardening');
const { Windows } = require('../../main/electron/windows') as typeof import('../../main/electron/windows');
const { serveContractOverIpc } = require('../../main/electron/contract-ipc') as typeof import('../../main/electron/contract-ipc');
const { handleAppProtocol } = require('../../main/electron/app-protocol') as typeof import('../../main/electron/app-protocol');
const { INVOKE_CHANNEL, NOTIFY_CHANNEL } = require('../../preload/ipc-protocol') as typeof import('../../preload/ipc-protocol');

/** A web contents as 'web-contents-created' hands it over: its listeners and window-open handler recorded. */
function contentsStandIn() {
  const listeners = new Map<string, (...args: unknown[]) => void>();
  let openHandler: WindowOpenHandler | null = null;
  const wc = {
    on: (ev: string, fn: (...args: unknown[]) => void) => {
      listeners.set(ev, fn);
      return wc;
    },
    setWindowOpenHandler: (h: WindowOpenHandler) => void (openHandler = h),
  };
  /** Emits `ev` with a preventable event; true when the listener prevented it. */
  const emit = (ev: string, ...args: unknown[]): boolean => {
    let prevented = false;
    const fn = listeners.get(ev);
    assert.ok(fn, `a listener for ${ev}`);
    fn({ preventDefault: () => void (prevented = true) }, ...args);
    return prevented;
  };
  return { wc: wc as unknown as WebContents, emit, open: () => openHandler };
}

test('checklist 2-4, 6: every window runs sandboxed, context-isolated, without Node, with web security; the app-wide sandbox is on', () => {
  const expected: WebPreferences = {
    preload: '/p/bundle.js',
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    safeDialogs: true,
    spellcheck: false,
    devTools: false, // packaged
  };
  assert.deepEqual(secureWebPreferences('/p/bundle.js'), expected);

  // Every window main/electron makes has exactly those preferences and loads only airlock://app/.
  const w = new Windows('/p/bundle.js');
  w.showMain();
  w.showMain('history');
  w.openPrompt({ id: 'p_1', action: 'write', summary: 'write x' } as unknown as Parameters<typeof w.openPrompt>[0]);
  assert.equal(windows.length, 2, 'the main window and one pop-up');
  for (const win of windows) {
    assert.deepEqual(win.opts.webPreferences, expected);
    assert.ok(win.loaded.length > 0);
    for (const url of win.loaded) assert.match(url, /^airlock:\/\/app\/index\.html(\?|#|$)/, `checklist 18: no file:// (${url})`);
  }

  // main.ts, loaded as Electron loads it: the scheme is privileged and the sandbox enabled
  // for every renderer before anything else (then it quits here: another instance holds the lock).
  require('../../main/electron/main');
  assert.deepEqual(
    appCalls.map((c) => c.split(':')[0]),
    ['registerSchemesAsPrivileged', 'enableSandbox', 'requestSingleInstanceLock', 'quit'],
  );
  const schemes = JSON.parse(appCalls[0]!.slice('registerSchemesAsPrivileged:'.length)) as { scheme: string; privileges: Record<string, boolean> }[];
  assert.deepEqual(schemes.map((s) => [s.scheme, s.privileges.standard, s.privileges.secure, s.privileges.bypassCSP ?? false]), [['airlock', true, true, false]], 'a secure standard scheme that never bypasses the CSP');
});

test('checklist 13-15: navigation away from the app, new windows and <webview> are refused for every web contents', () => {
  hardenApp();
  const created = appListeners.get('web-contents-created');
  assert.ok(created, 'app-wide: every web contents made from now on is hardened');
  const { wc, emit, open } = contentsStandIn();
  created({}, wc);
  for (const url of ['https://evil.example/', 'http://127.0.0.1:8080/', 'file:///etc/passwd', 'airlock://other/index.html', 'javascript:alert(1)', 'data:text/html,x', 'about:blank']) {
    assert.equal(emit('will-navigate', url), true, `will-navigate ${url}`);
    assert.equal(emit('will-redirect', url), true, `will-redirect ${url}`);
  }
  assert.equal(emit('will-navigate', 'airlock://app/index.html?view=history'), false, 'the app may move between its own views');
  assert.equal(emit('will-attach-webview', {}, { src: 'airlock://app/index.html' }), true, 'no <webview>, not even of the app');
  const handler = open();
  assert.ok(handler, 'a window-open handler is set');
  for (const url of ['https://evil.example/', 'airlock://app/index.html', 'about:blank']) {
    const r = handler({ url, frameName: '', features: '', disposition: 'new-window', referrer: { url: '', policy: 'no-referrer' } } as Parameters<WindowOpenHandler>[0]);
    assert.deepEqual(r, { action: 'deny' }, `window.open(${url})`);
  }
});

test('checklist 5: permission requests are denied, the clipboard write only to the app\'s own top frame; no device; no network', () => {
  hardenApp();
  const request = session.permissionRequest;
  const check = session.permissionCheck;
  assert.ok(request && check);
  const wc = { getURL: () => 'airlock://app/index.html' } as unknown as WebContents;
  const ask = (permission: Parameters<PermissionRequestHandler>[1], requestingUrl: string, isMainFrame = true): boolean => {
    let granted: boolean | null = null;
    request(wc, permission, (g) => void (granted = g), { requestingUrl, isMainFrame } as Parameters<PermissionRequestHandler>[3]);
    assert.notEqual(granted, null, 'answered at once');
    return granted!;
  };
  const checks = (permission: Parameters<PermissionCheckHandler>[1], origin: string, isMainFrame = true): boolean =>
    check(wc, permission, origin, { requestingUrl: `${origin}/index.html`, isMainFrame } as Parameters<PermissionCheckHandler>[3]);

  for (const p of ['media', 'geolocation', 'notifications', 'openExternal', 'display-capture', 'clipboard-read', 'fullscreen', 'pointerLock', 'keyboardLock', 'midiSysex', 'fileSystem', 'unknown'] as const) {
    assert.equal(ask(p, 'airlock://app/index.html'), false, `request ${p}`);
  }
  for (const p of ['hid', 'serial', 'usb', 'media', 'clipboard-read', 'notifications', 'geolocation'] as const) {
    assert.equal(checks(p, 'airlock://app'), false, `check ${p}`);
  }
  assert.equal(ask('clipboard-sanitized-write', 'airlock://app/index.html'), true, 'copying a public key works (the test can fail)');
  assert.equal(checks('clipboard-sanitized-write', 'airlock://app'), true);
  // The one permission the app uses is not handed to whatever else asks for it.
  assert.equal(ask('clipboard-sanitized-write', 'https://evil.example/'), false, 'another origin');
  assert.equal(ask('clipboard-sanitized-write', 'airlock://app/index.html', false), false, 'a subframe');
  assert.equal(checks('clipboard-sanitized-write', 'https://evil.example'), false, 'another origin (check)');
  assert.equal(checks('clipboard-sanitized-write', 'airlock://app', false), false, 'a subframe (check)');
  assert.equal(ask('clipboard-sanitized-write', 'airlock://app.evil/index.html'), false, 'a look-alike host');
  assert.ok(session.devicePermission, 'a device permission handler is set');
  assert.equal(session.devicePermission({ deviceType: 'usb', origin: 'airlock://app', device: {} } as unknown as Parameters<DevicePermissionHandler>[0]), false, 'no device');
  assert.ok(
    session.blocked.some((urls) => ['http://*/*', 'https://*/*'].every((u) => urls.includes(u))),
    'the renderer\'s own network requests are cancelled (it talks over IPC only)',
  );
});

test('checklist 16-17: one IPC channel, every call checked for its sender frame; the preload exposes only the contract', async () => {
  const calls: string[] = [];
  const handlers = Object.fromEntries(Object.keys(approverMethods).map((m) => [m, async () => (calls.push(m), { ok: m })])) as unknown as Handlers<typeof approverMethods>;
  serveContractOverIpc(createDispatch(approverMethods, handlers));
  assert.deepEqual([...ipc.handle.keys()], [INVOKE_CHANNEL], 'one invoke channel');
  assert.deepEqual(ipc.on, [], 'no fire-and-forget channel that would skip the checks');
  const invoke = ipc.handle.get(INVOKE_CHANNEL)!;
  const event = (url: string, top: boolean) => ({ senderFrame: { url, parent: top ? null : { url } }, sender: {} }) as unknown as IpcMainInvokeEvent;
  for (const method of Object.keys(approverMethods)) {
    // Every method of the table, from a frame that is not the app's own top frame: refused before its params are even looked at.
    for (const e of [event('airlock://app/index.html', false), event('https://evil.example/', true), event('airlock://app.evil/index.html', true)]) {
      const r = (await invoke(e, method, {})) as { ok: boolean; error?: { message: string } };
      assert.equal(r.ok, false, method);
      assert.match(r.error?.message ?? '', /not the Airlock renderer/, method);
    }
  }
  assert.deepEqual(calls, [], 'nothing reached the service');

  // Only main/electron/contract-ipc.ts talks to ipcMain: a handler anywhere else would not be checked.
  const dir = path.join(REPO, 'main', 'electron');
  for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
    const src = fs.readFileSync(path.join(dir, f), 'utf8');
    if (f !== 'contract-ipc.ts') assert.doesNotMatch(src, /\bipcMain\b/, `${f} uses ipcMain`);
    assert.doesNotMatch(src, /\bloadFile\s*\(|shell\.openExternal|allowFileAccess|nodeIntegration:\s*true|contextIsolation:\s*false|sandbox:\s*false|webSecurity:\s*false/, `${f}`);
  }

  // The preload, as the sandboxed renderer loads it: one object, the contract's methods and
  // onNotification, frozen; nothing of ipcRenderer or the IPC event crosses.
  require('../../preload/index');
  assert.deepEqual([...preload.exposed.keys()], ['airlock']);
  const bridge = preload.exposed.get('airlock') as Record<string, unknown>;
  assert.deepEqual(Object.keys(bridge).sort(), [...Object.keys(approverMethods), 'onNotification'].sort());
  assert.ok(Object.isFrozen(bridge));
  for (const v of Object.values(bridge)) assert.equal(typeof v, 'function');
  assert.deepEqual(await (bridge['settings.get'] as (p: unknown) => Promise<unknown>)({}), { echoed: 'settings.get' });
  assert.deepEqual(preload.invoked, [[INVOKE_CHANNEL, 'settings.get', {}]], 'one channel, the method name and the params, nothing else');
  const got: unknown[][] = [];
  (bridge.onNotification as (cb: (...a: unknown[]) => void) => () => void)((...a) => got.push(a));
  const listener = preload.listeners.get(NOTIFY_CHANNEL);
  assert.ok(listener);
  listener({ sender: { send: () => undefined } } as unknown as IpcRendererEvent, { method: 'pending.resolved', params: { id: 'p' } });
  assert.deepEqual(got, [[{ method: 'pending.resolved', params: { id: 'p' } }]], 'the page gets the payload only, never the IPC event');
});

test('checklist 7: the CSP of main/api/csp.ts (nothing inline, no eval, no frames) on every response of airlock://, errors included', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'al-csp-'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>t</title>');
  handleAppProtocol(dir);
  const handle = protocolHandlers.get('airlock');
  assert.ok(handle, 'the airlock: scheme is handled');
  const { contentSecurityPolicy } = require('../../main/api/csp') as typeof import('../../main/api/csp');
  const requests = [new Request('airlock://app/index.html'), new Request('airlock://app/missing.js'), new Request('airlock://app/../x'), new Request('airlock://other/index.html'), new Request('airlock://app/index.html', { method: 'POST', body: 'x' })];
  for (const r of requests) {
    const res: Response = await handle(r);
    const csp: string = res.headers.get('content-security-policy') ?? '';
    assert.equal(csp, contentSecurityPolicy(), `${r.method} ${r.url} (${res.status})`);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
  }
});
