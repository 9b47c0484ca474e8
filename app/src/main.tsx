// Entry of the renderer, for both hosts. `?prompt=<id>` renders an Electron pop-up.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { initBridge } from './bridge';
import { Popup } from './Popup';
import { wireNotifications } from './state/notifications';
import { useUi, VIEWS, type View } from './state/ui-store';
import './styles.css';

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
  root.render(<StrictMode>{promptId ? <Popup id={promptId} /> : <App host={host} />}</StrictMode>);
}
