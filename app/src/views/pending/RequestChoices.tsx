// The choices for an ordinary request, as many as its risk allows (shared/prompt-choices):
// Deny (default), Allow once, Allow for this task, Allow for N minutes, Always — with the
// editable grant pattern the grant choices use. "Always" asks for a second, deliberate
// step. The footer is sticky: the buttons stay on screen however long the request is.
import type { RefObject } from 'react';
import type { Prompt } from '../../../../preload/types';
import type { Choice } from '../../../../shared/prompt-choices';
import { isWildcardAllow } from '../../../../shared/grant-words';
import { V, vis } from '../../components/Visible';

export type { Choice };
export type Pattern = { tool: string; resource: string };

export function RequestChoices(props: {
  prompt: Prompt;
  allowed: Choice[];
  pattern: Pattern;
  setPattern(p: Pattern): void;
  minutes: number;
  setMinutes(n: number): void;
  busy: boolean;
  /** True while the input guard holds or a decision is on its way. */
  off: boolean;
  denyRef: RefObject<HTMLButtonElement | null>;
  choose(c: Choice): void;
  confirmAlways: boolean;
  cancelAlways(): void;
  /** How many waiting prompts belong to this prompt's task (this one included). */
  sameTask: number;
  denyTask(): void;
  /** How many identical requests one answer answers (prompt.waiting). */
  waiting: number;
}) {
  const { prompt, allowed, pattern, setPattern, minutes, setMinutes, busy, off, denyRef, choose, confirmAlways, cancelAlways, sameTask, denyTask, waiting } = props;
  const grants = allowed.some((c) => c === 'task' || c === 'duration' || c === 'always');
  return (
    <>
      {grants && (
        <section className="pattern" aria-label="Grant pattern">
          <h3>
            Grant pattern <span className="muted small">(for “this task”, “N minutes”{allowed.includes('always') ? ' and “always”' : ''})</span>
          </h3>
          {prompt.suggestion && (
            <p className="small muted">
              Suggested: <V text={prompt.suggestion.label} />
              {prompt.suggestion.pastMatches && (
                <span data-testid="suggestion-past-matches">
                  {' '}
                  — would have matched {prompt.suggestion.pastMatches.matched} of this task’s last {prompt.suggestion.pastMatches.of} event
                  {prompt.suggestion.pastMatches.of === 1 ? '' : 's'}
                </span>
              )}
            </p>
          )}
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
          {isWildcardAllow({ effect: 'allow', action: prompt.action, tool: pattern.tool.trim() || prompt.tool, resource: pattern.resource.trim() || prompt.resource || 'exact' }) && (
            <p className="small warning" data-testid="pattern-wildcard-warning">
              This pattern covers a {prompt.action} of anything: every such request would be allowed without asking.
            </p>
          )}
          {prompt.risk.level === 'high' && <p className="small muted" data-testid="no-always-note">High risk: no “Always” — at most this task or a few minutes.</p>}
        </section>
      )}

      {confirmAlways && (
        <section className="always-confirm" role="group" aria-label="Confirm always" data-testid="always-confirm">
          <p>
            <strong>Allow always?</strong> A standing grant for every task, with no end: <span className="mono">{vis(pattern.tool.trim() || prompt.tool)}</span> on{' '}
            <span className="mono">{pattern.resource.trim() ? vis(pattern.resource.trim()) : 'exactly these resources'}</span>. You can revoke it under Grants.
          </p>
          <div className="btn-row">
            <button className="btn danger-solid" data-testid="choice-always-confirm" disabled={busy} aria-disabled={off} onClick={() => choose('always')}>
              Yes, allow always
            </button>
            <button className="btn" data-testid="choice-always-cancel" onClick={cancelAlways}>
              Cancel <kbd>Esc</kbd>
            </button>
          </div>
        </section>
      )}

      <footer className="choices" data-testid="choices">
        {/* Beside the buttons, in the sticky footer: the card's own line about it is at its
            top, out of view when the human has scrolled down a long card to answer it. */}
        {waiting > 1 && (
          <p className="choices-waiting strong" data-testid="choices-waiting">
            Answers all {waiting} identical requests waiting, “Allow once” too.
          </p>
        )}
        <button ref={denyRef} className="btn deny" data-testid="choice-deny" disabled={busy} aria-disabled={off} onClick={() => choose('deny')}>
          Deny <kbd>Esc</kbd>
        </button>
        <button className="btn" data-testid="choice-once" disabled={busy} aria-disabled={off} onClick={() => choose('once')}>
          Allow once <kbd>O</kbd>
        </button>
        {allowed.includes('task') && (
          <button className="btn" data-testid="choice-task" disabled={busy} aria-disabled={off} title={`Until task “${vis(prompt.taskName ?? prompt.task)}” ends`} onClick={() => choose('task')}>
            {prompt.source === 'egress' ? 'Allow this host for this task' : 'Allow for this task'} <kbd>T</kbd>
          </button>
        )}
        {allowed.includes('duration') && (
          <span className="btn-group">
            <button
              className="btn"
              data-testid="choice-duration"
              disabled={busy}
              aria-disabled={off}
              title={prompt.task ? `For ${minutes} min, for task “${vis(prompt.taskName ?? prompt.task)}” only` : `For ${minutes} min`}
              onClick={() => choose('duration')}
            >
              Allow for {minutes} min{prompt.task ? ', this task' : ''} <kbd>M</kbd>
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
        )}
        {allowed.includes('always') && !confirmAlways && (
          <button className="btn always" data-testid="choice-always" disabled={busy} aria-disabled={off} onClick={() => choose('always')}>
            Always… <kbd>A</kbd>
          </button>
        )}
        {prompt.task !== null && (
          <button className="btn danger deny-task" data-testid="deny-task" disabled={busy} aria-disabled={off} onClick={denyTask} title="Deny every waiting request of this task">
            Deny all from this task{sameTask > 1 ? ` (${sameTask})` : ''} <kbd>⇧D</kbd>
          </button>
        )}
      </footer>
    </>
  );
}
