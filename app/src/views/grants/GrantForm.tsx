// Create a grant by hand, with every field of GrantSpec editable (globs for patterns).
import { useMemo, useState } from 'react';
import type { GrantSpecInput } from '../../../../preload/types';
import { airlock } from '../../bridge';
import { useLists } from '../../state/lists-store';
import { attempt, useUi } from '../../state/ui-store';

const ACTIONS = ['*', 'read', 'write', 'delete', 'transfer', 'execute', 'sign', 'other'] as const;

export function GrantForm({ onDone }: { onDone(): void }) {
  // Select the stored array and filter here: a selector that builds a new array on every
  // call makes zustand re-render forever.
  const allTasks = useLists((s) => s.tasks);
  const tasks = useMemo(() => allTasks.filter((t) => t.endedAt === null), [allTasks]);
  const toast = useUi((s) => s.toast);
  const [effect, setEffect] = useState<'allow' | 'deny'>('allow');
  const [action, setAction] = useState<(typeof ACTIONS)[number]>('read');
  const [source, setSource] = useState('*');
  const [tool, setTool] = useState('*');
  const [resource, setResource] = useState('');
  const [task, setTask] = useState('');
  const [minutes, setMinutes] = useState('');
  const [uses, setUses] = useState('');
  const [note, setNote] = useState('');

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    const spec: GrantSpecInput = { effect, action, source, tool, resource: resource || '*' };
    if (task) spec.task = task;
    if (minutes) spec.expiresAt = Date.now() + Number(minutes) * 60_000;
    if (uses) spec.uses = Number(uses);
    if (note) spec.note = note;
    const r = await attempt('Could not create the grant', () => airlock()['grants.create'](spec));
    if (r) {
      toast(`Grant ${r.grant.id} created`);
      onDone();
    }
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
      <div className="wide form-actions">
        <button type="button" className="btn" onClick={onDone}>
          Cancel
        </button>
        <button type="submit" className="btn primary" data-testid="grant-submit">
          Create grant
        </button>
      </div>
    </form>
  );
}
