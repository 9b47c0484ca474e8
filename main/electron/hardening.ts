// Electron security checklist, the parts that apply to every web contents: secure
// webPreferences, no navigation away from the app, no new windows, no <webview>, no
// permissions, no network.
import { app, session, type WebContents, type WebPreferences } from 'electron';
import { isAppUrl } from './app-protocol';

export function secureWebPreferences(preload: string): WebPreferences {
  return {
    preload,
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
    devTools: !app.isPackaged,
  };
}

function hardenContents(contents: WebContents): void {
  contents.on('will-navigate', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  // No new windows at all — not even handing URLs to the system browser: the renderer
  // shows agent-supplied text, and nothing it renders needs to open anything.
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

/**
 * The one permission the renderer uses (copying a public key: the sanitized clipboard
 * write), and only for Airlock's own top frame: a permission handler that looks at the
 * permission alone grants it to whatever page or frame asks (Electron's checklist: check
 * the origin in permission handlers).
 */
export function permissionAllowed(permission: string, requestingUrl: string | undefined | null, isMainFrame: boolean): boolean {
  return permission === 'clipboard-sanitized-write' && isMainFrame && isAppUrl(requestingUrl);
}

export function hardenApp(): void {
  app.on('web-contents-created', (_event, contents) => hardenContents(contents));
  const ses = session.defaultSession;
  // The renderer needs no camera, notifications API, geolocation, devices…
  ses.setPermissionRequestHandler((_wc, permission, callback, details) => callback(permissionAllowed(permission, details.requestingUrl, details.isMainFrame)));
  ses.setPermissionCheckHandler((_wc, permission, requestingOrigin, details) => permissionAllowed(permission, details.requestingUrl ?? requestingOrigin, details.isMainFrame));
  // No USB, HID or serial device is ever granted, whatever a handler above says.
  ses.setDevicePermissionHandler(() => false);
  // The renderer talks to the core over IPC only: any network request is a bug or an attack.
  // (Defence in depth: the CSP's connect-src already forbids it.)
  const cancel = (_details: unknown, callback: (r: { cancel: boolean }) => void) => callback({ cancel: true });
  try {
    ses.webRequest.onBeforeRequest({ urls: ['http://*/*', 'https://*/*', 'ws://*/*', 'wss://*/*', 'file:///*'] }, cancel);
  } catch {
    // An Electron whose URL patterns lack ws/file: block what every version accepts.
    ses.webRequest.onBeforeRequest({ urls: ['http://*/*', 'https://*/*'] }, cancel);
  }
}
