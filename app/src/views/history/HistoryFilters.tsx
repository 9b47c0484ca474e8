import { useEffect, useState } from 'react';
import { parseLocalDateTime } from '../../format';
import { useHistory } from '../../state/history-store';
import { useLists } from '../../state/lists-store';

const SOURCES = ['api', 'exec', 'claude-code', 'mcp', 'ssh'];
const ACTIONS = ['read', 'write', 'delete', 'transfer', 'execute', 'sign', 'other'];
const DECISIONS = ['allow', 'deny', 'reject'] as const;

export function HistoryFilters() {
  const filter = useHistory((s) => s.filter);
  const setFilter = useHistory((s) => s.setFilter);
  const tasks = useLists((s) => s.tasks);
  const [text, setText] = useState(filter.text ?? '');

  // Search as you type, but one query per pause, not per key.
  useEffect(() => {
    if ((filter.text ?? '') === text) return;
    const t = setTimeout(() => setFilter({ text }), 200);
    return () => clearTimeout(t);
  }, [text, filter.text, setFilter]);

  return (
    <div className="filters" role="search">
      <input
        type="search"
        placeholder="Search summary, resource, tool, reason…"
        value={text}
        onChange={(e) => setText(e.target.value)}
        data-testid="history-search"
        aria-label="Search history"
      />
      <select aria-label="Task" value={filter.task ?? ''} onChange={(e) => setFilter({ task: e.target.value || undefined })} data-testid="filter-task">
        <option value="">all tasks</option>
        {tasks.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name}
            {t.endedAt ? ' (ended)' : ''}
          </option>
        ))}
      </select>
      <select aria-label="Source" value={filter.source ?? ''} onChange={(e) => setFilter({ source: e.target.value || undefined })} data-testid="filter-source">
        <option value="">all sources</option>
        {SOURCES.map((s) => (
          <option key={s}>{s}</option>
        ))}
      </select>
      <select aria-label="Action" value={filter.action ?? ''} onChange={(e) => setFilter({ action: e.target.value || undefined })} data-testid="filter-action">
        <option value="">all actions</option>
        {ACTIONS.map((s) => (
          <option key={s}>{s}</option>
        ))}
      </select>
      <select
        aria-label="Decision"
        value={filter.decision ?? ''}
        onChange={(e) => setFilter({ decision: (e.target.value || undefined) as (typeof DECISIONS)[number] | undefined })}
        data-testid="filter-decision"
      >
        <option value="">all decisions</option>
        {DECISIONS.map((s) => (
          <option key={s}>{s}</option>
        ))}
      </select>
      <label className="small">
        from <input type="datetime-local" aria-label="Since" onChange={(e) => setFilter({ since: parseLocalDateTime(e.target.value) })} />
      </label>
      <label className="small">
        to <input type="datetime-local" aria-label="Until" onChange={(e) => setFilter({ until: parseLocalDateTime(e.target.value) })} />
      </label>
    </div>
  );
}
