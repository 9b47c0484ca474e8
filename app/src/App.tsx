// The main window: navigation on the left, one view on the right, toasts on top.
import { useEffect } from 'react';
import { Announcer } from './components/Announcer';
import { Toasts } from './components/Toasts';
import { useConnection } from './state/connection-store';
import { useLists } from './state/lists-store';
import { usePending } from './state/pending-store';
import { attempt, useUi, VIEWS, type View } from './state/ui-store';
import { GrantsView } from './views/grants/GrantsView';
import { HistoryView } from './views/history/HistoryView';
import { KeysView } from './views/keys/KeysView';
import { PendingView } from './views/pending/PendingView';
import { SecretsView } from './views/secrets/SecretsView';
import { SettingsView } from './views/settings/SettingsView';
import { TasksView } from './views/tasks/TasksView';

const LABELS: Record<View, string> = {
  pending: 'Pending',
  history: 'History',
  grants: 'Grants',
  tasks: 'Tasks',
  keys: 'Keys',
  secrets: 'Secrets',
  settings: 'Settings',
};

export function App({ host }: { host: 'electron' | 'web' }) {
  const view = useUi((s) => s.view);
  const show = useUi((s) => s.show);
  // Prompts shown while Airlock is unreachable are expired: they do not count as waiting.
  const pendingCount = usePending((s) => (s.offline ? 0 : s.prompts.length));
  const conn = useConnection((s) => s.state);

  // A background tab (web mode) or a taskbar entry still says that something waits.
  useEffect(() => {
    document.title = pendingCount ? `(${pendingCount}) Airlock — waiting for you` : 'Airlock';
  }, [pendingCount]);
  useEffect(() => {
    void attempt('Could not load pending requests', () => usePending.getState().load());
    void attempt('Could not load tasks', () => useLists.getState().loadTasks());
  }, []);
  return (
    <div className="app">
      <nav className="nav" aria-label="Views">
        <div className="brand">
          <span className="logo" aria-hidden="true" /> Airlock
        </div>
        {VIEWS.map((v) => (
          <button key={v} className={`nav-item${v === view ? ' active' : ''}`} onClick={() => show(v)} data-testid={`nav-${v}`} aria-current={v === view ? 'page' : undefined}>
            {LABELS[v]}
            {v === 'pending' && pendingCount > 0 && (
              <span className="count" data-testid="pending-count">
                {pendingCount}
              </span>
            )}
          </button>
        ))}
        <div className="nav-foot small muted">{host === 'web' ? 'web mode (loopback)' : 'desktop'}</div>
      </nav>
      <main className="content">
        {conn !== 'open' && (
          <div className={`banner ${conn}`} role="status" data-testid="connection-banner">
            {conn === 'unauthorized'
              ? 'Cannot connect: the token this tab was opened with is not valid — Airlock refuses it (rotated with --new-web-token, or another Airlock serves this port): open the URL it printed.'
              : "Can't reach Airlock: the connection was lost. Waiting requests were denied; reconnecting…"}
          </div>
        )}
        <h1 className="view-title">{LABELS[view]}</h1>
        {view === 'pending' && <PendingView />}
        {view === 'history' && <HistoryView />}
        {view === 'grants' && <GrantsView />}
        {view === 'tasks' && <TasksView />}
        {view === 'keys' && <KeysView />}
        {view === 'secrets' && <SecretsView />}
        {view === 'settings' && <SettingsView host={host} />}
      </main>
      <Toasts />
      <Announcer />
    </div>
  );
}
