import { useEffect, useState } from 'react';
import { parseLocalDateTime } from '../../format';
import { useHistory } from '../../state/history-store';
import { useLists } from '../../state/lists-store';
import { vis } from '../../components/Visible';

// The agent-side sources, then where refused connections are recorded from.
const SOURCES = ['api', 'exec', 'claude-code', 'mcp', 'ssh', 'egress', 'request.sock', 'agent.sock', 'ui.sock', 'web'];
// Suggestions only: the tool filter takes any exact tool name, as `airlock history --tool` does.
const TOOLS = ['task.start', 'task.end', 'Bash', 'Write', 'Edit', 'Read', 'WebFetch', 'exec', 'ssh-sign', 'ssh-agent', '(connect)'];
const ACTIONS = ['read', 'write', 'delete', 'transfer', 'execute', 'sign', 'other'] as const;
const DECISIONS = ['allow', 'deny', 'reject'] as const;

const asTyped = (typed: string): string => typed;
const exactName = (typed: string): string | undefined => typed.trim() || undefined;

/** A filter typed into a box: its own state, applied as you type but one query per pause, not per key. */
function useTypedFilter(key: 'text' | 'tool', toValue: (typed: string) => string | undefined): [string, (typed: string) => void] {
  const current = useHistory((s) => s.filter[key]);
  const setFilter = useHistory((s) => s.setFilter);
  const [typed, setTyped] = useState(current ?? '');
  useEffect(() => {
    const want = toValue(typed);
    if ((current ?? '') === (want ?? '')) return;
    const t = setTimeout(() => setFilter({ [key]: want }), 200);
    return () => clearTimeout(t);
  }, [typed, current, key, toValue, setFilter]);
  return [typed, setTyped];
}

export function HistoryFilters() {
  const filter = useHistory((s) => s.filter);
  const setFilter = useHistory((s) => s.setFilter);
  const tasks = useLists((s) => s.tasks);
  const [text, setText] = useTypedFilter('text', asTyped);
  const [tool, setTool] = useTypedFilter('tool', exactName);

  const chips: { key: keyof typeof filter; label: string }[] = [];
  if (filter.text) chips.push({ key: 'text', label: `text “${filter.text}”` });
  if (filter.task) chips.push({ key: 'task', label: `task ${tasks.find((t) => t.id === filter.task)?.name ?? filter.task}` });
  if (filter.source) chips.push({ key: 'source', label: `source ${filter.source}` });
  if (filter.tool) chips.push({ key: 'tool', label: `tool ${filter.tool}` });
  if (filter.action) chips.push({ key: 'action', label: `action ${filter.action}` });
  if (filter.decision) chips.push({ key: 'decision', label: `decision ${filter.decision}` });
  if (filter.since !== undefined) chips.push({ key: 'since', label: `from ${new Date(filter.since).toLocaleString()}` });
  if (filter.until !== undefined) chips.push({ key: 'until', label: `to ${new Date(filter.until).toLocaleString()}` });
  const clear = (key?: keyof typeof filter) => {
    if (!key || key === 'text') setText('');
    if (!key || key === 'tool') setTool('');
    setFilter(key ? { [key]: undefined } : { text: '', task: undefined, source: undefined, tool: undefined, action: undefined, decision: undefined, since: undefined, until: undefined });
  };

  return (
    <div className="filters" role="search">
      {chips.length > 0 && (
        <div className="chips" data-testid="filter-chips" aria-label="Active filters" role="group">
          {chips.map((c) => (
            <button key={c.key} className="chip" onClick={() => clear(c.key)} data-testid="filter-chip" aria-label={`Remove filter ${vis(c.label)}`}>
              {vis(c.label)} <span aria-hidden="true">×</span>
            </button>
          ))}
          <button className="btn link small" onClick={() => clear()} data-testid="filter-clear">
            Clear all
          </button>
        </div>
      )}
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
            {vis(t.name)}
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
      <input
        type="text"
        list="history-tools"
        placeholder="tool"
        value={tool}
        onChange={(e) => setTool(e.target.value)}
        data-testid="filter-tool"
        aria-label="Tool (exact name)"
        maxLength={256}
        size={12}
      />
      <datalist id="history-tools">
        {TOOLS.map((s) => (
          <option key={s} value={s} />
        ))}
      </datalist>
      <select aria-label="Action" value={filter.action ?? ''} onChange={(e) => setFilter({ action: ACTIONS.find((a) => a === e.target.value) })} data-testid="filter-action">
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
        from <input key={filter.since === undefined ? 'unset' : 'set'} type="datetime-local" aria-label="Since" onChange={(e) => setFilter({ since: parseLocalDateTime(e.target.value) })} />
      </label>
      <label className="small">
        to <input key={filter.until === undefined ? 'unset' : 'set'} type="datetime-local" aria-label="Until" onChange={(e) => setFilter({ until: parseLocalDateTime(e.target.value) })} />
      </label>
    </div>
  );
}
