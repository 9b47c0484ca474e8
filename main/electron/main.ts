// The tray app: one instance, the core running in this process, a tray icon that shows
// idle / N pending / locked, a pop-up per pending prompt, the main window, and the
// renderer on airlock://app/ talking to the core over validated IPC only.
import { Menu, Tray, app, dialog, powerMonitor } from 'electron';
import * as path from 'node:path';
import { startCore, type RunningDaemon } from '../api/daemon';
import { handleAppProtocol, registerAppScheme } from './app-protocol';
import { broadcastNotifications, serveContractOverIpc } from './contract-ipc';
import { notifyIfGrantAllowed } from './desktop-notify';
import { safeStorageSealer } from './safe-storage-sealer';
import { hardenApp } from './hardening';
import { applyStartAtLogin } from './login-item';
import { trayIcon, trayTooltip, type TrayState } from './tray-icon';
import { Windows } from './windows';

// Compiled layout: $OUT/main/electron/main.js, $OUT/preload/bundle.js, $OUT/app/.
const OUT = path.join(__dirname, '..', '..');
const PRELOAD = path.join(OUT, 'preload', 'bundle.js');
const APP_DIR = path.join(OUT, 'app');

registerAppScheme();
app.enableSandbox();

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  void run();
}

async function run(): Promise<void> {
  const windows = new Windows(PRELOAD);
  app.on('second-instance', () => void app.whenReady().then(() => windows.showMain()));
  // A tray app: closing every window must not quit (the SSH agent lives here).
  app.on('window-all-closed', () => undefined);

  await app.whenReady();
  hardenApp();
  handleAppProtocol(APP_DIR);

  let core: RunningDaemon;
  try {
    // SSH keys sealed by the OS keychain when there is a real one (Keychain, DPAPI,
    // libsecret/kwallet); otherwise the headless master-key file, as `airlock serve` does.
    const keySealer = safeStorageSealer() ?? undefined;
    core = await startCore({ log: (l) => console.log(`airlock: ${l}`), keySealer });
    if (keySealer) console.log('airlock: SSH keys sealed with the OS keychain (safeStorage)');
  } catch (e) {
    dialog.showErrorBox('Airlock could not start', (e as Error).message);
    app.exit(1);
    return;
  }

  const startAtLogin = (enabled: boolean) => {
    try {
      applyStartAtLogin(enabled);
    } catch (e) {
      // The setting is saved either way; the login item is best effort (read-only home…).
      console.error(`airlock: start at login: ${(e as Error).message}`);
    }
  };
  serveContractOverIpc(core.dispatch, {
    onReject: (r) => core.recorder.recordRejected(r),
    after: (method, result) => {
      if (method === 'settings.set') startAtLogin((result as { settings: { startAtLogin: boolean } }).settings.startAtLogin);
    },
  });
  broadcastNotifications(core.service, () => windows.all());
  // Electron reads only through the ApproverService, like every other human-side client.
  const settingsNow = async () => (await core.service['settings.get']({})).settings;
  startAtLogin((await settingsNow()).startAtLogin);

  // ---- tray -----------------------------------------------------------------------
  let screenLocked = false;
  const pendingIds = new Set((await core.service['pending.list']({})).prompts.map((p) => p.id));
  const tray = new Tray(trayIcon({ kind: 'idle' }));
  const state = (): TrayState =>
    screenLocked ? { kind: 'locked', pending: pendingIds.size } : pendingIds.size ? { kind: 'pending', count: pendingIds.size } : { kind: 'idle' };
  const refreshTray = () => {
    const s = state();
    tray.setImage(trayIcon(s));
    tray.setToolTip(trayTooltip(s));
    if (process.platform === 'darwin') tray.setTitle(pendingIds.size ? String(pendingIds.size) : '');
    tray.setContextMenu(
      Menu.buildFromTemplate([
        { label: trayTooltip(s), enabled: false },
        { type: 'separator' },
        { label: pendingIds.size ? `Answer ${pendingIds.size} waiting…` : 'Pending', click: () => windows.showMain('pending') },
        { label: 'History', click: () => windows.showMain('history') },
        { label: 'Grants', click: () => windows.showMain('grants') },
        { label: 'Tasks', click: () => windows.showMain('tasks') },
        { label: 'Keys', click: () => windows.showMain('keys') },
        { label: 'Settings', click: () => windows.showMain('settings') },
        { type: 'separator' },
        { label: 'Quit Airlock (denies what is waiting)', click: () => app.quit() },
      ]),
    );
  };
  tray.on('click', () => windows.showMain());
  refreshTray();

  // ---- prompts → pop-ups ----------------------------------------------------------------
  const showPopups = async () => {
    if (screenLocked) return;
    for (const p of (await core.service['pending.list']({})).prompts) windows.openPrompt(p);
  };
  core.service.subscribe((n) => {
    if (n.method === 'pending.added') {
      pendingIds.add(n.params.id);
      if (!screenLocked) windows.openPrompt(n.params);
      refreshTray();
    } else if (n.method === 'pending.resolved') {
      pendingIds.delete(n.params.id);
      windows.closePrompt(n.params.id);
      void showPopups(); // one that did not fit (MAX_POPUPS) gets its turn
      refreshTray();
    } else if (n.method === 'event.recorded') {
      void settingsNow().then((s) => notifyIfGrantAllowed(n.params, s.notifications));
    }
  });
  // While the screen is locked nobody can answer; pop-ups wait for the unlock.
  powerMonitor.on('lock-screen', () => {
    screenLocked = true;
    refreshTray();
  });
  powerMonitor.on('unlock-screen', () => {
    screenLocked = false;
    refreshTray();
    void showPopups();
  });

  if (!process.argv.includes('--hidden')) windows.showMain();
  void showPopups();

  let closing = false;
  app.on('before-quit', (e) => {
    windows.quitting = true;
    if (closing) return;
    closing = true;
    e.preventDefault();
    windows.closeAll();
    tray.destroy();
    void core.close().finally(() => app.exit(0));
  });
}
