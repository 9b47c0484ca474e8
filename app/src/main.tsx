// Entry of the renderer, for both hosts. `?prompt=<id>` renders an Electron pop-up.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { initBridge } from './bridge';
import { Popup } from './Popup';
import type { Prompt } from '../../preload/types';
import { wireNotifications } from './state/notifications';
import { useUi, VIEWS, type View } from './state/ui-store';
import './styles.css';

/** The prompt Electron's main put in a pop-up's URL (app-protocol.ts popupUrl); null when absent or not that prompt. */
function promptFromHash(id: string): Prompt | null {
  const raw = new URLSearchParams(window.location.hash.slice(1)).get('prompt');
  if (!raw) return null;
  try {
    const p = JSON.parse(raw) as Prompt | null;
    return p && typeof p === 'object' && p.id === id && typeof p.summary === 'string' ? p : null;
  } catch {
    return null;
  }
}

const root = createRoot(document.getElementById('root')!);
const host = initBridge();
if (host === 'none') {
  root.render(
    <div className="no-token">
      <h1>Airlock</h1>
      <p>
        This page needs the token that <code>airlock serve --web</code> printed: open the full URL it showed (it ends in <code>#token=…</code>).
      </p>
    </div>,
  );
} else {
  wireNotifications();
  const query = new URLSearchParams(window.location.search);
  const promptId = query.get('prompt');
  // The tray menu opens the main window on a given view (?view=history).
  const view = query.get('view');
  if (view && (VIEWS as readonly string[]).includes(view)) useUi.setState({ view: view as View });
  root.render(<StrictMode>{promptId ? <Popup id={promptId} given={promptFromHash(promptId)} /> : <App host={host} />}</StrictMode>);
}
