// The detail pane of one history event: everything that was recorded, raw args included.
import type { HistoryEvent } from '../../../../preload/types';
import { ProcessChain } from '../../components/ProcessChain';
import { DecisionBadge, RiskBadge } from '../../components/RiskBadge';
import { formatTime, prettyJson } from '../../format';
import { useLists } from '../../state/lists-store';
import { V } from '../../components/Visible';

function decider(e: HistoryEvent): string {
  switch (e.decidedBy) {
    case 'grant':
      return `grant ${e.grant ?? '?'}`;
    case 'human':
      return `you${e.scope && e.scope !== 'once' ? ` (allowed for ${e.scope === 'duration' ? 'a while' : e.scope === 'task' ? 'the task' : 'always'}${e.grant ? `, created grant ${e.grant}` : ''})` : ''}`;
    case 'timeout':
      return 'nobody: the prompt timed out';
    case 'policy':
      return 'the default policy';
    case 'invalid':
      return 'refused as invalid';
    case 'system':
      // Nobody was asked: the daemon itself (a task's session let go, a start over the cap, what a connection sent).
      return 'Airlock itself';
    default:
      return e.decidedBy;
  }
}

export function EventDetail({ event, onClose }: { event: HistoryEvent; onClose(): void }) {
  const tasks = useLists((s) => s.tasks);
  const task = event.task ? tasks.find((t) => t.id === event.task) : undefined;
  return (
    <aside className="detail" data-testid="event-detail" aria-label={`Event ${event.id}`}>
      <header>
        <h3>
          #{event.id} <DecisionBadge decision={event.decision} /> <RiskBadge level={event.risk.level} />
        </h3>
        <button className="btn small" onClick={onClose} aria-label="Close detail">
          ×
        </button>
      </header>
      <p className="strong"><V text={event.summary} /></p>
      <dl>
        <dt>When</dt>
        <dd>{formatTime(event.ts)}</dd>
        <dt>Decided by</dt>
        <dd data-testid="detail-decided-by">{decider(event)}</dd>
        <dt>Reason</dt>
        <dd><V text={event.reason} /></dd>
        <dt>Task</dt>
        <dd>{task ? <V text={task.name} /> : (event.task ?? '—')}</dd>
        <dt>Source</dt>
        <dd><V text={event.source} /></dd>
        <dt>Tool</dt>
        <dd className="mono"><V text={event.tool} /></dd>
        <dt>Action</dt>
        <dd><V text={event.action} /></dd>
        <dt>Resource</dt>
        <dd className="mono">{event.resource !== null ? <V text={event.resource} /> : '—'}</dd>
        {event.cwd && (
          <>
            <dt>In</dt>
            <dd className="mono small"><V text={event.cwd} /></dd>
          </>
        )}
        <dt>Process</dt>
        <dd>{event.process ? <ProcessChain process={event.process} /> : '—'}</dd>
        {event.remote && (
          <>
            <dt>From</dt>
            <dd className="mono small">
              remote <V text={event.remote.name} /> via <V text={event.remote.via} />
            </dd>
          </>
        )}
        {event.ssh && (
          <>
            <dt>SSH key</dt>
            <dd className="mono small">
              <V text={event.ssh.keyName} /> {event.ssh.fingerprint}
              {event.ssh.forwarded ? ' (forwarded)' : ''}
            </dd>
          </>
        )}
        {event.risk.reasons.length > 0 && (
          <>
            <dt>Risk</dt>
            <dd>
              <ul>
                {event.risk.reasons.map((r, i) => (
                  <li key={i}><V text={r} /></li>
                ))}
              </ul>
            </dd>
          </>
        )}
        <dt>Hash</dt>
        <dd className="mono small break">{event.hash}</dd>
      </dl>
      <h4>Raw arguments</h4>
      <pre data-testid="detail-args"><V text={prettyJson(event.args)} multiline /></pre>
    </aside>
  );
}
