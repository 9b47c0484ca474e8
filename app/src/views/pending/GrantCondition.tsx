// Grant choices that only MCP and other tool calls with arguments have (issue 14), kept
// apart from PromptCard:
// - a condition the grant carries, started from the request's own arguments: the daemon
//   offers one part per argument ("amount ≤ 40", "to is alice@…"); the human ticks parts
//   (joined with "and") or edits the CEL text. The daemon compiles it again when the grant
//   is made and refuses it with the reason; the prompt stays to be answered.
// - "only reads from this server, for this task": one allow grant for the server's reads
//   and one deny grant for all else it offers, bound to the task.
import { useState } from 'react';
import type { Prompt } from '../../../../preload/types';
import { conditionParts } from '../../../../shared/request-origin';
import { V, vis } from '../../components/Visible';

/** Longest condition text the field accepts (the daemon's own cap is larger). */
const MAX_WHEN = 2000;

export function ConditionPicker({ prompt, when, setWhen, disabled }: { prompt: Prompt; when: string; setWhen(w: string): void; disabled: boolean }) {
  const parts = conditionParts(prompt.conditions);
  const [ticked, setTicked] = useState<number[]>([]);
  if (!parts.length) return null;
  const joined = (ix: number[]) => ix.map((i) => parts[i]!.when).join(' && ');
  const toggle = (i: number) => {
    const next = ticked.includes(i) ? ticked.filter((x) => x !== i) : [...ticked, i].sort((a, b) => a - b);
    setTicked(next);
    setWhen(joined(next));
  };
  const text = when.trim();
  const words = !text
    ? 'none: the grant covers every such request, whatever its arguments'
    : text === joined(ticked)
      ? ticked.map((i) => parts[i]!.words).join(' and ')
      : 'your own condition (CEL over args); Airlock checks it when you decide and refuses it with the reason';
  return (
    <section className="condition" data-testid="condition-picker" aria-label="Condition on the arguments">
      <h3>
        Only when <span className="muted small">(a condition on this request’s own arguments, for the grant)</span>
      </h3>
      <ul className="condition-parts">
        {parts.map((c, i) => (
          <li key={c.when}>
            <label>
              <input type="checkbox" data-testid={`condition-part-${i}`} checked={ticked.includes(i)} disabled={disabled} onChange={() => toggle(i)} /> <V text={c.words} />
            </label>
          </li>
        ))}
      </ul>
      <label className="condition-text">
        Condition
        <input
          data-testid="condition-text"
          className="mono"
          value={when}
          maxLength={MAX_WHEN}
          placeholder="none (every such request)"
          spellCheck={false}
          disabled={disabled}
          onChange={(e) => {
            setWhen(e.target.value);
            setTicked([]);
          }}
        />
      </label>
      <p className="small" data-testid="condition-words">
        In words: <V text={words} />
      </p>
      {text && <p className="small muted">A request that does not meet it, or whose arguments cannot be checked, is asked about again: a condition never allows by itself.</p>}
    </section>
  );
}

/** "Only reads from this server, for this task": for MCP requests of a task. */
export function ServerReadOnlyChoice({ prompt, busy, off, choose }: { prompt: Prompt; busy: boolean; off: boolean; choose(): void }) {
  if (!prompt.mcpServer || prompt.task === null || prompt.source !== 'mcp') return null;
  const read = prompt.action === 'read';
  return (
    <section className="server-read-only" data-testid="server-read-only" aria-label="Only reads from this server">
      <button className="btn" data-testid="choice-server-read-only" disabled={busy} aria-disabled={off} onClick={choose}>
        Only reads from “{vis(prompt.mcpServer)}”, for this task
      </button>{' '}
      <span className="small muted">
        Allows every read of {vis(prompt.mcpServer)} and denies every write, delete, move or send of it until the task ends
        {read ? '; this read is allowed.' : `; this ${prompt.action} is denied.`}
      </span>
    </section>
  );
}
