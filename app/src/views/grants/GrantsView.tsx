import { useEffect, useState } from 'react';
import type { Grant } from '../../../../preload/types';
import { airlock } from '../../bridge';
import { formatRelative } from '../../format';
import { useNow } from '../../components/use-now';
import { CANT_REACH, useConnection } from '../../state/connection-store';
import { useLists } from '../../state/lists-store';
import { attempt, useUi } from '../../state/ui-store';
import { GrantForm } from './GrantForm';
import { grantInWords, isWildcardAllow } from '../../../../shared/grant-words';
import { V, vis } from '../../components/Visible';

function status(g: Grant, now: number): string {
  if (g.revokedAt !== null) return 'revoked';
  if (g.expiresAt !== null && g.expiresAt <= now) return 'expired';
  if (g.usesLeft !== null && g.usesLeft <= 0) return 'used up';
  return 'active';
}

export function GrantsView() {
  const grants = useLists((s) => s.grants);
  const tasks = useLists((s) => s.tasks);
  const showInactive = useLists((s) => s.showInactiveGrants);
  const setShowInactive = useLists((s) => s.setShowInactiveGrants);
  const loadGrants = useLists((s) => s.loadGrants);
  const toast = useUi((s) => s.toast);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Grant | null>(null);
  /** The grant whose Revoke was pressed once: the second press (Confirm) revokes. */
  const [confirming, setConfirming] = useState<string | null>(null);
  const now = useNow();
  const conn = useConnection((s) => s.state);

  useEffect(() => {
    void attempt('Could not load grants', loadGrants);
  }, [loadGrants]);

  async function revoke(g: Grant) {
    setConfirming(null);
    const ok = await attempt('Could not revoke', () => airlock()['grants.revoke']({ id: g.id }));
    if (ok) {
      toast(`Grant ${g.id} revoked`);
      void loadGrants();
    }
  }

  const taskName = (id: string | null) => (id ? (tasks.find((t) => t.id === id)?.name ?? id) : 'any task');

  return (
    <div className="grants-view">
      <div className="toolbar">
        <label className="inline small">
          <input type="checkbox" checked={showInactive} onChange={(e) => setShowInactive(e.target.checked)} /> show revoked and expired
        </label>
        <button className="btn primary small" onClick={() => setCreating(true)} data-testid="grant-new">
          New grant
        </button>
      </div>
      {(creating || editing) && (
        <GrantForm
          key={editing?.id ?? 'new'}
          {...(editing ? { initial: editing } : {})}
          onDone={() => {
            setCreating(false);
            setEditing(null);
            void loadGrants();
          }}
        />
      )}
      {conn !== 'open' && (
        <p className="banner" role="status" data-testid="cant-reach">
          {CANT_REACH}
        </p>
      )}
      {grants.length === 0 ? (
        conn === 'open' && <p className="muted empty">No grants. Every request that the default policy says to ask about will prompt.</p>
      ) : (
        <table className="table" data-testid="grants-table">
          <thead>
            <tr>
              <th>Effect</th>
              <th>What it does</th>
              <th>Action</th>
              <th>Source · Tool</th>
              <th>Resource</th>
              <th>Task</th>
              <th>Expires</th>
              <th>Uses left</th>
              <th>Last used</th>
              <th>By</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {grants.map((g) => {
              const st = status(g, now);
              return (
                <tr key={g.id} data-testid="grant-row" data-grant-id={g.id} className={st !== 'active' ? 'inactive' : ''}>
                  <td>
                    <span className={`badge decision-${g.effect}`}>{g.effect}</span>
                    {st !== 'active' && <span className="badge muted-badge">{st}</span>}
                  </td>
                  <td className="words" data-testid="grant-words">
                    <V text={grantInWords(g, g.task ? taskName(g.task) : null, now)} />
                    {isWildcardAllow(g) && st === 'active' && (
                      <div className="warning small" data-testid="grant-wildcard">
                        wildcard: a high-impact action on anything
                      </div>
                    )}
                  </td>
                  <td>{typeof g.action === 'string' ? g.action : g.action.join(', ')}</td>
                  <td className="mono small">
                    <V text={g.source} /> · <V text={g.tool} />
                    {g.key && <div className="small">key {g.key}</div>}
                    {g.forwarded && <span className="badge forwarded">forwarded ok</span>}
                  </td>
                  <td className="mono small break" data-testid="grant-resource-cell">
                    <V text={g.resource} />
                  </td>
                  <td className="small"><V text={taskName(g.task)} /></td>
                  <td className="small">{g.expiresAt === null ? 'never' : formatRelative(g.expiresAt, now)}</td>
                  <td className="small">{g.usesLeft === null ? '∞' : g.usesLeft}</td>
                  <td className="small">{formatRelative(g.lastUsedAt, now)}</td>
                  <td className="small" title={vis(g.note)}>
                    {g.createdBy}
                  </td>
                  <td>
                    {g.revokedAt === null && confirming !== g.id && (
                      <span className="btn-row">
                        <button className="btn small" onClick={() => setEditing(g)} data-testid="grant-edit">
                          Edit
                        </button>
                        <button className="btn small danger" onClick={() => setConfirming(g.id)} data-testid="grant-revoke">
                          Revoke
                        </button>
                      </span>
                    )}
                    {g.revokedAt === null && confirming === g.id && (
                      <span className="btn-row" role="group" aria-label="Confirm revoke">
                        <button className="btn small danger-solid" onClick={() => void revoke(g)} data-testid="grant-revoke-confirm">
                          Revoke it
                        </button>
                        <button className="btn small" onClick={() => setConfirming(null)} data-testid="grant-revoke-cancel">
                          Keep
                        </button>
                      </span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
