// The choices of DESIGN.md for an ordinary request: Deny (default), Allow once, Allow for
// this task, Allow for N minutes, Always — with the editable grant pattern they use.
import type { RefObject } from 'react';
import type { Prompt } from '../../../../preload/types';

export type Choice = 'deny' | 'once' | 'task' | 'duration' | 'always';
export type Pattern = { tool: string; resource: string };

export function RequestChoices(props: {
  prompt: Prompt;
  pattern: Pattern;
  setPattern(p: Pattern): void;
  minutes: number;
  setMinutes(n: number): void;
  busy: boolean;
  /** True while the input guard holds or a decision is on its way. */
  off: boolean;
  denyRef: RefObject<HTMLButtonElement | null>;
  choose(c: Choice): void;
}) {
  const { prompt, pattern, setPattern, minutes, setMinutes, busy, off, denyRef, choose } = props;
  const hasTask = prompt.task !== null;
  return (
    <>
      <section className="pattern" aria-label="Grant pattern">
        <h3>
          Grant pattern <span className="muted small">(for “this task”, “N minutes” and “always”)</span>
        </h3>
        {prompt.suggestion && <p className="small muted">Suggested: {prompt.suggestion.label}</p>}
        <div className="pattern-fields">
          <label>
            Tool
            <input data-testid="pattern-tool" value={pattern.tool} onChange={(e) => setPattern({ ...pattern, tool: e.target.value })} spellCheck={false} />
          </label>
          <label>
            Resource
            <input
              data-testid="pattern-resource"
              placeholder="exactly this request's resources"
              value={pattern.resource}
              onChange={(e) => setPattern({ ...pattern, resource: e.target.value })}
              spellCheck={false}
            />
          </label>
        </div>
      </section>

      <footer className="choices" data-testid="choices">
        <button ref={denyRef} className="btn deny" data-testid="choice-deny" disabled={busy} aria-disabled={off} onClick={() => choose('deny')}>
          Deny <kbd>Esc</kbd>
        </button>
        <button className="btn" data-testid="choice-once" disabled={busy} aria-disabled={off} onClick={() => choose('once')}>
          Allow once <kbd>O</kbd>
        </button>
        <button
          className="btn"
          data-testid="choice-task"
          disabled={busy || !hasTask}
          aria-disabled={off || !hasTask}
          title={hasTask ? `Until task “${prompt.taskName ?? prompt.task}” ends` : 'This request belongs to no task'}
          onClick={() => choose('task')}
        >
          Allow for this task <kbd>T</kbd>
        </button>
        <span className="btn-group">
          <button className="btn" data-testid="choice-duration" disabled={busy} aria-disabled={off} onClick={() => choose('duration')}>
            Allow for {minutes} min <kbd>M</kbd>
          </button>
          <input
            className="minutes"
            type="number"
            min={1}
            max={1440}
            value={minutes}
            aria-label="Minutes"
            data-testid="duration-minutes"
            onChange={(e) => setMinutes(Math.max(1, Math.min(1440, Number(e.target.value) || 1)))}
          />
        </span>
        <button className="btn always" data-testid="choice-always" disabled={busy} aria-disabled={off} onClick={() => choose('always')}>
          Always <kbd>A</kbd>
        </button>
      </footer>
    </>
  );
}
