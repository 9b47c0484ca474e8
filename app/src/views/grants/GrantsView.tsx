import { useEffect, useState } from 'react';
import type { Grant } from '../../../../preload/types';
import { airlock } from '../../bridge';
import { formatRelative } from '../../format';
import { useLists } from '../../state/lists-store';
import { attempt, useUi } from '../../state/ui-store';
import { GrantForm } from './GrantForm';

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
  const now = Date.now();

  useEffect(() => {
    void attempt('Could not load grants', loadGrants);
  }, [loadGrants]);

  async function revoke(g: Grant) {
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
      {creating && (
        <GrantForm
          onDone={() => {
            setCreating(false);
            void loadGrants();
          }}
        />
      )}
      {grants.length === 0 ? (
        <p className="muted empty">No grants. Every request that the default policy says to ask about will prompt.</p>
      ) : (
        <table className="table" data-testid="grants-table">
          <thead>
            <tr>
              <th>Effect</th>
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
                  <td>{g.action}</td>
                  <td className="mono small">
                    {g.source} · {g.tool}
                    {g.key && <div className="small">key {g.key}</div>}
                    {g.forwarded && <span className="badge forwarded">forwarded ok</span>}
                  </td>
                  <td className="mono small break" data-testid="grant-resource-cell">
                    {g.resource}
                  </td>
                  <td className="small">{taskName(g.task)}</td>
                  <td className="small">{g.expiresAt === null ? 'never' : formatRelative(g.expiresAt, now)}</td>
                  <td className="small">{g.usesLeft === null ? '∞' : g.usesLeft}</td>
                  <td className="small">{formatRelative(g.lastUsedAt, now)}</td>
                  <td className="small" title={g.note ?? ''}>
                    {g.createdBy}
                  </td>
                  <td>
                    {g.revokedAt === null && (
                      <button className="btn small danger" onClick={() => void revoke(g)} data-testid="grant-revoke">
                        Revoke
                      </button>
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
