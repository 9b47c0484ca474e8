// Tasks, active and ended; selecting one shows its timeline (history.query {task}).
import { useEffect, useState } from 'react';
import type { HistoryEvent, Task } from '../../../../preload/types';
import { airlock } from '../../bridge';
import { DecisionBadge, RiskBadge } from '../../components/RiskBadge';
import { formatRelative, formatTime } from '../../format';
import { useLists } from '../../state/lists-store';
import { attempt, useUi } from '../../state/ui-store';

function Timeline({ task }: { task: Task }) {
  const [events, setEvents] = useState<HistoryEvent[] | null>(null);
  const openEvent = useUi((s) => s.openEvent);
  useEffect(() => {
    let live = true;
    void attempt('Could not load the timeline', async () => {
      const r = await airlock()['history.query']({ task: task.id, limit: 500 });
      if (live) setEvents(r.events);
    });
    const off = airlock().onNotification((n) => {
      if (n.method === 'event.recorded' && n.params.task === task.id) setEvents((es) => [n.params, ...(es ?? [])]);
    });
    return () => {
      live = false;
      off();
    };
  }, [task.id]);
  if (!events) return <p className="muted">Loading…</p>;
  if (!events.length) return <p className="muted">No requests yet.</p>;
  return (
    <ol className="timeline" data-testid="task-timeline">
      {[...events].reverse().map((e) => (
        <li key={e.id} onClick={() => openEvent(e)} title="Open in History">
          <span className="mono small">{formatTime(e.ts)}</span> <DecisionBadge decision={e.decision} /> <RiskBadge level={e.risk.level} />{' '}
          <span className="small">{e.action}</span> {e.summary} <span className="muted small">({e.decidedBy})</span>
        </li>
      ))}
    </ol>
  );
}

export function TasksView() {
  const tasks = useLists((s) => s.tasks);
  const loadTasks = useLists((s) => s.loadTasks);
  const toast = useUi((s) => s.toast);
  const [selected, setSelected] = useState<string | null>(null);
  useEffect(() => {
    void attempt('Could not load tasks', loadTasks);
  }, [loadTasks]);

  const active = tasks.filter((t) => t.endedAt === null);
  const ended = tasks.filter((t) => t.endedAt !== null);
  const current = tasks.find((t) => t.id === selected) ?? null;

  async function end(t: Task) {
    const ok = await attempt('Could not end the task', () => airlock()['tasks.end']({ task: t.id }));
    if (ok) {
      toast(`Task “${t.name}” ended; its grants and SSH socket are gone`);
      void loadTasks();
    }
  }

  const list = (ts: Task[]) => (
    <ul className="task-list">
      {ts.map((t) => (
        <li key={t.id} className={t.id === selected ? 'selected' : ''} data-testid="task-item">
          <button className="link" onClick={() => setSelected(t.id)}>
            <strong>{t.name}</strong>
          </button>
          <div className="small muted">
            started {formatRelative(t.createdAt)}
            {t.endedAt ? ` · ended ${formatRelative(t.endedAt)}` : ''}
            {t.cwd ? ` · ${t.cwd}` : ''}
          </div>
          {t.endedAt === null && (
            <button className="btn small" onClick={() => void end(t)}>
              End task
            </button>
          )}
        </li>
      ))}
    </ul>
  );

  return (
    <div className="split">
      <div className="split-left">
        <h3>Active ({active.length})</h3>
        {active.length ? list(active) : <p className="muted small">No running tasks.</p>}
        <h3>Ended ({ended.length})</h3>
        {ended.length ? list(ended) : <p className="muted small">None.</p>}
      </div>
      <div className="split-right">
        {current ? (
          <>
            <h2 className="task-title">
              {current.name} <span className="mono small muted">{current.id}</span>
            </h2>
            {current.sshAuthSock && <p className="small mono">SSH_AUTH_SOCK={current.sshAuthSock}</p>}
            <Timeline task={current} />
          </>
        ) : (
          <p className="muted">Select a task to see its timeline.</p>
        )}
      </div>
    </div>
  );
}
