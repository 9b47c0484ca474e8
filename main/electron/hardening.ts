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

export function hardenApp(): void {
  app.on('web-contents-created', (_event, contents) => hardenContents(contents));
  const ses = session.defaultSession;
  // The renderer needs no camera, notifications API, geolocation…; copying the public
  // key uses the sanitized clipboard write only.
  ses.setPermissionRequestHandler((_wc, permission, callback) => callback(permission === 'clipboard-sanitized-write'));
  ses.setPermissionCheckHandler((_wc, permission) => permission === 'clipboard-sanitized-write');
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
