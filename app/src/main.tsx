// Entry of the renderer, for both hosts. `?prompt=<id>` renders an Electron pop-up.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { initBridge } from './bridge';
import { Popup } from './Popup';
import { wireNotifications } from './state/notifications';
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
  const promptId = new URLSearchParams(window.location.search).get('prompt');
  root.render(<StrictMode>{promptId ? <Popup id={promptId} /> : <App host={host} />}</StrictMode>);
}
