// A task that started with `grants` asks for them in one prompt (DESIGN.md: nothing is
// granted silently). Every grant is listed on its own row from the prompt's structured
// `grants` (never from a summary that could be cut), wildcards and high-impact actions
// marked. A wildcard allow of a high-impact action is created only when its own checkbox
// is ticked (`confirmGrants`); "Accept" alone creates the others and not that one.
import type { RefObject } from 'react';
import type { GrantSpecInput, Prompt, PromptGrant } from '../../../../preload/types';
import { formatRelative } from '../../format';
import { V } from '../../components/Visible';

const HIGH_IMPACT = new Set(['write', 'delete', 'transfer', 'execute', 'sign', '*']);

/** The grants of a `task.start` prompt: the core's structured list, else (older core) its args. */
export function requestedGrants(p: Prompt): PromptGrant[] | null {
  if (p.tool !== 'task.start') return null;
  if (p.grants) return p.grants;
  if (!Array.isArray(p.args)) return null;
  return (p.args as GrantSpecInput[]).map((s, index) => {
    const resource = s.resource ?? '**';
    const tool = s.tool ?? '*';
    const highImpact = Array.isArray(s.action) ? s.action.some((a) => HIGH_IMPACT.has(a)) : HIGH_IMPACT.has(s.action);
    const any = /^[*?~/.\s]*$/.test(resource);
    return {
      index, effect: s.effect, action: s.action, source: s.source ?? '*', tool, resource, key: s.key ?? null,
      expiresAt: typeof s.expiresAt === 'number' ? s.expiresAt : s.expiresAt ? Date.parse(s.expiresAt) : null,
      uses: s.uses ?? null, forwarded: s.forwarded ?? false, note: s.note ?? null, when: s.when ?? null,
      wildcard: s.action === '*' || /[*?[\]{}]/.test(resource + tool),
      highImpact,
      needsConfirmation: s.effect === 'allow' && highImpact && (s.action === '*' || any),
    };
  });
}

export function TaskGrantsList(props: { grants: PromptGrant[]; confirmed: number[]; toggle(index: number): void; disabled: boolean }) {
  const { grants, confirmed, toggle, disabled } = props;
  const blank = grants.filter((g) => g.needsConfirmation);
  return (
    <section className="facts" data-testid="task-grants">
      <h3>
        Grants this task asks for ({grants.length})
      </h3>
      {blank.length > 0 && (
        <p className="critical-note" data-testid="task-grants-warning">
          {blank.length} of them allow{blank.length === 1 ? 's' : ''} a high-impact action on anything. Each is created only if you tick its
          &nbsp;“confirm” box; accepting without it creates the others only.
        </p>
      )}
      <table className="table">
        <thead>
          <tr>
            <th>#</th>
            <th>Effect</th>
            <th>Action</th>
            <th>Source · Tool</th>
            <th>Resource</th>
            <th>Limits</th>
            <th>Confirm</th>
          </tr>
        </thead>
        <tbody>
          {grants.map((g) => (
            <tr
              key={g.index}
              data-testid="task-grant"
              data-index={g.index}
              data-wildcard={g.wildcard ? 'true' : 'false'}
              data-high-impact={g.highImpact ? 'true' : 'false'}
              data-needs-confirmation={g.needsConfirmation ? 'true' : 'false'}
              className={g.needsConfirmation ? 'risk-border-critical' : undefined}
            >
              <td className="mono small">{g.index}</td>
              <td>
                <span className={`badge decision-${g.effect}`}>{g.effect}</span>
              </td>
              <td className={g.highImpact ? 'strong' : ''}>
                {g.action === '*' ? 'every action' : Array.isArray(g.action) ? g.action.join(', ') : g.action}
                {g.highImpact && <span className="badge forwarded" data-testid="mark-high-impact">high impact</span>}
              </td>
              <td className="mono small">
                <V text={g.source} /> · <V text={g.tool} />
                {g.key && <div>key <V text={g.key} /></div>}
                {g.forwarded && <span className="badge forwarded">forwarded ok</span>}
              </td>
              <td className="mono small break">
                {g.resource === '**' ? '** (anything)' : <V text={g.resource} />}
                {g.wildcard && <span className="badge muted-badge" data-testid="mark-wildcard">wildcard</span>}
              </td>
              <td className="small">
                {g.expiresAt !== null ? `expires ${formatRelative(g.expiresAt)}` : 'until the task ends'}
                {g.uses !== null ? `, ${g.uses} uses` : ''}
                {g.when && <div>when <V text={g.when} /></div>}
                {g.note && <div className="muted"><V text={g.note} /></div>}
              </td>
              <td>
                {g.needsConfirmation ? (
                  <label className="small">
                    <input
                      type="checkbox"
                      data-testid={`confirm-grant-${g.index}`}
                      checked={confirmed.includes(g.index)}
                      disabled={disabled}
                      onChange={() => toggle(g.index)}
                    />{' '}
                    confirm
                  </label>
                ) : (
                  <span className="muted small">—</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** Refuse (default, Esc) or accept; accepting answers this one prompt ("once") with the confirmed indices. */
export function TaskGrantsChoices(props: {
  grants: PromptGrant[];
  confirmed: number[];
  busy: boolean;
  off: boolean;
  denyRef: RefObject<HTMLButtonElement | null>;
  choose(c: 'deny' | 'once'): void;
}) {
  const { grants, confirmed, busy, off, denyRef, choose } = props;
  const count = grants.filter((g) => !g.needsConfirmation || confirmed.includes(g.index)).length;
  const left = grants.length - count;
  return (
    <footer className="choices" data-testid="choices">
      <button ref={denyRef} className="btn deny" data-testid="choice-deny" disabled={busy} aria-disabled={off} onClick={() => choose('deny')}>
        Refuse <kbd>Esc</kbd>
      </button>
      <button className="btn always" data-testid="choice-accept-grants" disabled={busy || count === 0} aria-disabled={off} onClick={() => choose('once')}>
        Accept {count} grant{count === 1 ? '' : 's'} for this task{left ? ` (not the ${left} unconfirmed)` : ''} <kbd>A</kbd>
      </button>
    </footer>
  );
}
