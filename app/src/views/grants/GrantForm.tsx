// Create a grant by hand, with every field of GrantSpec editable (globs for patterns), or
// edit one: the contract has no update, so an edit creates the new grant and then revokes
// the old one (never the other way round: there is no moment with neither). What the
// grant does is shown in words as it is typed, and a wildcard allow of a high-impact
// action needs an explicit "I understand".
import { useMemo, useState } from 'react';
import type { Grant, GrantSpecInput } from '../../../../preload/types';
import { grantInWords, isWildcardAllow } from '../../../../shared/grant-words';
import { airlock } from '../../bridge';
import { useLists } from '../../state/lists-store';
import { attempt, useUi } from '../../state/ui-store';

const ACTIONS = ['*', 'read', 'write', 'delete', 'transfer', 'execute', 'sign', 'other'] as const;

export function GrantForm({ onDone, initial }: { onDone(): void; initial?: Grant }) {
  // Select the stored array and filter here: a selector that builds a new array on every
  // call makes zustand re-render forever.
  const allTasks = useLists((s) => s.tasks);
  const tasks = useMemo(() => allTasks.filter((t) => t.endedAt === null), [allTasks]);
  const toast = useUi((s) => s.toast);
  const initialAction = initial && typeof initial.action === 'string' && (ACTIONS as readonly string[]).includes(initial.action) ? (initial.action as (typeof ACTIONS)[number]) : 'read';
  const [effect, setEffect] = useState<'allow' | 'deny'>(initial?.effect ?? 'allow');
  const [action, setAction] = useState<(typeof ACTIONS)[number]>(initialAction);
  const [source, setSource] = useState(initial?.source ?? '*');
  const [tool, setTool] = useState(initial?.tool ?? '*');
  const [resource, setResource] = useState(initial?.resource ?? '');
  const [task, setTask] = useState(initial?.task ?? '');
  const [minutes, setMinutes] = useState(initial?.expiresAt ? String(Math.max(1, Math.round((initial.expiresAt - Date.now()) / 60_000))) : '');
  const [uses, setUses] = useState(initial?.usesLeft !== null && initial?.usesLeft !== undefined ? String(initial.usesLeft) : '');
  const [note, setNote] = useState(initial?.note ?? '');
  const [ack, setAck] = useState(false);
  const draft = { effect, action, source, tool, resource: resource || '*', task: task || null, expiresAt: minutes ? Date.now() + Number(minutes) * 60_000 : null, uses: uses ? Number(uses) : null };
  const wildcard = isWildcardAllow(draft);
  const taskName = tasks.find((t) => t.id === task)?.name ?? null;

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    const spec: GrantSpecInput = { effect, action, source, tool, resource: resource || '*' };
    if (task) spec.task = task;
    if (minutes) spec.expiresAt = Date.now() + Number(minutes) * 60_000;
    if (uses) spec.uses = Number(uses);
    if (note) spec.note = note;
    if (wildcard && !ack) return;
    const r = await attempt('Could not create the grant', () => airlock()['grants.create'](spec));
    if (!r) return;
    if (initial) {
      const old = initial.id;
      const revoked = await attempt('Created the new grant, but could not revoke the old one', () => airlock()['grants.revoke']({ id: old }));
      toast(revoked ? `Grant ${old} replaced by ${r.grant.id}` : `Grant ${r.grant.id} created; ${old} is still active`, revoked ? 'info' : 'error');
    } else toast(`Grant ${r.grant.id} created`);
    onDone();
  }

  return (
    <form className="card form-grid" onSubmit={(e) => void submit(e)} data-testid="grant-form">
      <label>
        Effect
        <select value={effect} onChange={(e) => setEffect(e.target.value as 'allow' | 'deny')} data-testid="grant-effect">
          <option value="allow">allow</option>
          <option value="deny">deny</option>
        </select>
      </label>
      <label>
        Action
        <select value={action} onChange={(e) => setAction(e.target.value as (typeof ACTIONS)[number])} data-testid="grant-action">
          {ACTIONS.map((a) => (
            <option key={a}>{a}</option>
          ))}
        </select>
      </label>
      <label>
        Source (glob)
        <input value={source} onChange={(e) => setSource(e.target.value)} spellCheck={false} />
      </label>
      <label>
        Tool (glob)
        <input value={tool} onChange={(e) => setTool(e.target.value)} spellCheck={false} data-testid="grant-tool" />
      </label>
      <label className="wide">
        Resource (glob, e.g. /home/me/project/** or git@github.com)
        <input value={resource} onChange={(e) => setResource(e.target.value)} placeholder="*" spellCheck={false} data-testid="grant-resource" />
      </label>
      <label>
        Task
        <select value={task} onChange={(e) => setTask(e.target.value)}>
          <option value="">any task (global)</option>
          {tasks.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Expires after (min)
        <input type="number" min={1} value={minutes} onChange={(e) => setMinutes(e.target.value)} placeholder="never" />
      </label>
      <label>
        Uses
        <input type="number" min={1} value={uses} onChange={(e) => setUses(e.target.value)} placeholder="unlimited" />
      </label>
      <label className="wide">
        Note
        <input value={note} onChange={(e) => setNote(e.target.value)} />
      </label>
      <p className="wide grant-words" data-testid="grant-form-words">
        {grantInWords(draft, taskName)}
      </p>
      {wildcard && (
        <label className="wide inline warning" data-testid="grant-wildcard-warning">
          <input type="checkbox" checked={ack} onChange={(e) => setAck(e.target.checked)} data-testid="grant-wildcard-ack" />
          This allows a high-impact action on anything (or any command): an agent could use it for what you never meant. I understand.
        </label>
      )}
      <div className="wide form-actions">
        <button type="button" className="btn" onClick={onDone}>
          Cancel
        </button>
        <button type="submit" className="btn primary" data-testid="grant-submit" disabled={wildcard && !ack}>
          {initial ? 'Save (replaces the grant)' : 'Create grant'}
        </button>
      </div>
    </form>
  );
}
