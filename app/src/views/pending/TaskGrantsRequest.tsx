// A task that started with `grants` asks for them in one prompt (DESIGN.md: nothing is
// granted silently): list each requested grant; the choices are refuse or accept all.
import type { RefObject } from 'react';
import type { GrantSpecInput, Prompt } from '../../../../preload/types';
import { formatRelative } from '../../format';

/** The core's prompt for `task.start {grants}`: tool task.start with the specs as args. */
export function requestedGrants(p: Prompt): GrantSpecInput[] | null {
  if (p.tool !== 'task.start' || !Array.isArray(p.args)) return null;
  return p.args as GrantSpecInput[];
}

export function TaskGrantsList({ specs }: { specs: GrantSpecInput[] }) {
  return (
    <section className="facts" data-testid="task-grants">
      <h3>Grants this task asks for</h3>
      <table className="table">
        <thead>
          <tr>
            <th>Effect</th>
            <th>Action</th>
            <th>Source · Tool</th>
            <th>Resource</th>
            <th>Limits</th>
          </tr>
        </thead>
        <tbody>
          {specs.map((s, i) => (
            <tr key={i}>
              <td>
                <span className={`badge decision-${s.effect}`}>{s.effect}</span>
              </td>
              <td className={s.action === '*' ? 'strong' : ''}>{s.action === '*' ? 'every action' : s.action}</td>
              <td className="mono small">
                {s.source ?? '*'} · {s.tool ?? '*'}
                {s.key && <div>key {s.key}</div>}
                {s.forwarded && <span className="badge forwarded">forwarded ok</span>}
              </td>
              <td className="mono small break">{s.resource ?? '** (anything)'}</td>
              <td className="small">
                {s.expiresAt !== undefined ? `expires ${formatRelative(typeof s.expiresAt === 'number' ? s.expiresAt : Date.parse(s.expiresAt))}` : 'until the task ends'}
                {s.uses !== undefined ? `, ${s.uses} uses` : ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** Refuse (default, Esc) or accept them all; accepting answers this one prompt ("once"). */
export function TaskGrantsChoices(props: {
  count: number;
  busy: boolean;
  off: boolean;
  denyRef: RefObject<HTMLButtonElement | null>;
  choose(c: 'deny' | 'once'): void;
}) {
  const { count, busy, off, denyRef, choose } = props;
  return (
    <footer className="choices" data-testid="choices">
      <button ref={denyRef} className="btn deny" data-testid="choice-deny" disabled={busy} aria-disabled={off} onClick={() => choose('deny')}>
        Refuse <kbd>Esc</kbd>
      </button>
      <button className="btn always" data-testid="choice-accept-grants" disabled={busy} aria-disabled={off} onClick={() => choose('once')}>
        Accept {count} grant{count === 1 ? '' : 's'} for this task <kbd>A</kbd>
      </button>
    </footer>
  );
}
