// Tasks, active and ended; selecting one shows its timeline (history.query {task}).
import { useEffect, useState } from 'react';
import type { Grant, HistoryEvent, Task } from '../../../../preload/types';
import { grantInWords } from '../../../../shared/grant-words';
import { airlock } from '../../bridge';
import { DecisionBadge, RiskBadge } from '../../components/RiskBadge';
import { actionLabel, formatRelative, formatTime } from '../../format';
import { CANT_REACH, useConnection } from '../../state/connection-store';
import { useLists } from '../../state/lists-store';
import { attempt, useUi } from '../../state/ui-store';
import { V, vis } from '../../components/Visible';
import { TaskDestinations } from './TaskDestinations';

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
        <li key={e.id}>
          <button className="timeline-item" onClick={() => openEvent(e)} title="Open in History">
            <span className="mono small">{formatTime(e.ts)}</span> <DecisionBadge decision={e.decision} /> <RiskBadge level={e.risk.level} />{' '}
            <span className="small">{actionLabel(e)}</span> <V text={e.summary} /> <span className="muted small">({e.decidedBy})</span>
          </button>
        </li>
      ))}
    </ol>
  );
}

/** The grants bound to a task, in words (issue 11: Tasks shows a task's grants and events). */
function TaskGrants({ task }: { task: Task }) {
  const [grants, setGrants] = useState<Grant[] | null>(null);
  useEffect(() => {
    let live = true;
    const load = () =>
      void attempt('Could not load the task\'s grants', async () => {
        const r = await airlock()['grants.list']({ task: task.id });
        if (live) setGrants(r.grants.filter((g) => g.task === task.id));
      });
    load();
    const off = airlock().onNotification((n) => {
      if (n.method === 'grants.changed') load();
    });
    return () => {
      live = false;
      off();
    };
  }, [task.id]);
  if (!grants) return null;
  return (
    <section className="task-grants" data-testid="task-grants-list" aria-label="Grants of this task">
      <h3>Grants ({grants.length})</h3>
      {grants.length === 0 ? (
        <p className="muted small">None: every request of this task that the policy asks about prompts.</p>
      ) : (
        <ul>
          {grants.map((g) => (
            <li key={g.id} className="small" data-testid="task-grant">
              <V text={grantInWords(g, task.name)} /> <span className="mono muted">{g.id}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function TasksView() {
  const tasks = useLists((s) => s.tasks);
  const loadTasks = useLists((s) => s.loadTasks);
  const toast = useUi((s) => s.toast);
  const [selected, setSelected] = useState<string | null>(null);
  /** The task whose "End task" was pressed once: the second press ends it. */
  const [confirming, setConfirming] = useState<string | null>(null);
  const conn = useConnection((s) => s.state);
  useEffect(() => {
    void attempt('Could not load tasks', loadTasks);
  }, [loadTasks]);

  const active = tasks.filter((t) => t.endedAt === null);
  const ended = tasks.filter((t) => t.endedAt !== null);
  const current = tasks.find((t) => t.id === selected) ?? null;

  async function end(t: Task) {
    setConfirming(null);
    const ok = await attempt('Could not end the task', () => airlock()['tasks.end']({ task: t.id }));
    if (ok) {
      toast(`Task “${vis(t.name)}” ended; its grants and SSH socket are gone`);
      void loadTasks();
    }
  }

  const list = (ts: Task[]) => (
    <ul className="task-list">
      {ts.map((t) => (
        <li key={t.id} className={t.id === selected ? 'selected' : ''} data-testid="task-item">
          <button className="link" onClick={() => setSelected(t.id)}>
            <strong><V text={t.name} /></strong>
          </button>
          <div className="small muted">
            started {formatRelative(t.createdAt)}
            {t.endedAt ? ` · ended ${formatRelative(t.endedAt)}` : ''}
            {t.cwd ? ` · ${vis(t.cwd)}` : ''}
          </div>
          {t.endedAt === null && confirming !== t.id && (
            <button className="btn small" onClick={() => setConfirming(t.id)} data-testid="task-end">
              End task
            </button>
          )}
          {t.endedAt === null && confirming === t.id && (
            <span className="btn-row" role="group" aria-label="Confirm end task">
              <span className="small">End it? Its grants and SSH socket go with it.</span>
              <button className="btn small danger-solid" onClick={() => void end(t)} data-testid="task-end-confirm">
                End task
              </button>
              <button className="btn small" onClick={() => setConfirming(null)} data-testid="task-end-cancel">
                Keep
              </button>
            </span>
          )}
        </li>
      ))}
    </ul>
  );

  return (
    <div className="split">
      {conn !== 'open' && (
        <p className="banner wide" role="status" data-testid="cant-reach">
          {CANT_REACH}
        </p>
      )}
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
              <V text={current.name} /> <span className="mono small muted">{current.id}</span>
            </h2>
            {current.remote && (
              <p className="small" data-testid="task-remote">
                Started through remote <V text={current.remote} />: only that remote (or this machine) can end it.
              </p>
            )}
            {current.sshAuthSock && <p className="small mono">SSH_AUTH_SOCK=<V text={current.sshAuthSock} /></p>}
            <TaskGrants task={current} />
            <TaskDestinations task={current} />
            <h3>Requests</h3>
            <Timeline task={current} />
          </>
        ) : (
          <p className="muted">Select a task to see its timeline.</p>
        )}
      </div>
    </div>
  );
}
