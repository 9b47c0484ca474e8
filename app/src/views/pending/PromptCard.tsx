// One pending request, laid out as DESIGN.md "What a prompt must show": who, what, why
// it is risky, and the choices, with the countdown and the input guard.
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import type { DecideParams, Prompt } from '../../../../preload/types';
import { Countdown } from '../../components/Countdown';
import { ProcessChain } from '../../components/ProcessChain';
import { RiskBadge } from '../../components/RiskBadge';
import { prettyJson } from '../../format';
import { usePending } from '../../state/pending-store';
import { attempt, useUi } from '../../state/ui-store';
import { SshFacts } from './SshFacts';
import { RequestChoices, type Choice } from './RequestChoices';
import { TaskGrantsChoices, TaskGrantsList, requestedGrants } from './TaskGrantsRequest';
import { useInputGuard } from './use-input-guard';

const SHORTCUTS: Record<string, Choice> = { Escape: 'deny', d: 'deny', o: 'once', t: 'task', m: 'duration', a: 'always' };
/** A task's grant request has two answers: refuse, or accept them all ("once" = this request). */
const GRANT_REQUEST_SHORTCUTS: Record<string, Choice> = { Escape: 'deny', d: 'deny', a: 'once' };

function initialPattern(p: Prompt): { tool: string; resource: string } {
  if (p.suggestion) return { tool: p.suggestion.tool, resource: p.suggestion.resource };
  // Empty resource: the core grants exactly this request — every resource, or for a shell
  // command its exact parts. Prefilling the first resource instead would grant a raw
  // string read as a glob (and, for a command, everything run in that directory).
  return { tool: p.tool, resource: '' };
}

export function PromptCard({ prompt, keyboard }: { prompt: Prompt; keyboard: boolean }) {
  const decide = usePending((s) => s.decide);
  const toast = useUi((s) => s.toast);
  const guard = useInputGuard();
  const [pattern, setPattern] = useState(() => initialPattern(prompt));
  const [minutes, setMinutes] = useState(15);
  const [busy, setBusy] = useState(false);
  const denyRef = useRef<HTMLButtonElement>(null);
  const uid = useId();
  const hasTask = prompt.task !== null;
  const specs = requestedGrants(prompt);

  async function choose(choice: Choice): Promise<void> {
    if (busy || !guard.ready()) return;
    if (choice === 'task' && !hasTask) return;
    const grantPattern: { tool: string; resource?: string } = { tool: pattern.tool.trim() || prompt.tool };
    if (pattern.resource.trim()) grantPattern.resource = pattern.resource.trim();
    const params: DecideParams =
      choice === 'deny'
        ? { id: prompt.id, decision: 'deny', scope: 'once' }
        : choice === 'once'
          ? { id: prompt.id, decision: 'allow', scope: 'once' }
          : choice === 'task'
            ? { id: prompt.id, decision: 'allow', scope: 'task', pattern: grantPattern }
            : choice === 'duration'
              ? { id: prompt.id, decision: 'allow', scope: 'duration', durationSec: Math.max(1, Math.round(minutes * 60)), pattern: grantPattern }
              : { id: prompt.id, decision: 'allow', scope: 'always', pattern: grantPattern };
    setBusy(true);
    const done = await attempt('Could not decide', async () => {
      const grant = await decide(params);
      toast(choice === 'deny' ? 'Denied' : specs ? `Accepted ${specs.length} grant(s) for the task` : grant ? `Allowed; grant ${grant.id} created` : 'Allowed once');
      return true;
    });
    if (!done) setBusy(false);
  }

  // Keyboard shortcuts go to the active card only (the top one, or the pop-up's own).
  const chooseRef = useRef(choose);
  chooseRef.current = choose;
  // A layout effect: the listener exists from the moment the card is in the DOM, so even
  // the earliest key is seen (and swallowed by the guard) rather than slipping past.
  useLayoutEffect(() => {
    if (!keyboard) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const inField = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement;
      if (inField && e.key !== 'Escape') return;
      const choice = (specs ? GRANT_REQUEST_SHORTCUTS : SHORTCUTS)[e.key.length === 1 ? e.key.toLowerCase() : e.key];
      if (!choice) return;
      e.preventDefault();
      void chooseRef.current(choice);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [keyboard, specs]);

  useEffect(() => {
    // Deny is the default: Enter on a fresh prompt denies (and is guarded like the rest).
    if (keyboard) denyRef.current?.focus({ preventScroll: true });
  }, [keyboard]);

  const off = busy || !guard.armed;
  return (
    <article
      className={`prompt-card risk-border-${prompt.risk.level}`}
      data-testid="prompt"
      data-prompt-id={prompt.id}
      data-armed={guard.armed ? 'true' : 'false'}
      data-swallowed={guard.swallowed}
      aria-labelledby={`${uid}-title`}
    >
      <header className="prompt-head">
        <RiskBadge level={prompt.risk.level} />
        <span className={`badge action action-${prompt.action}`}>{prompt.action}</span>
        <h2 id={`${uid}-title`} className="prompt-summary" data-testid="prompt-summary">
          {prompt.summary || `${prompt.tool} ${prompt.resource ?? ''}`}
        </h2>
      </header>
      <Countdown createdAt={prompt.createdAt} expiresAt={prompt.expiresAt} />

      <div className="prompt-grid">
        <section className="facts">
          <h3>Who</h3>
          <dl>
            <dt>Process</dt>
            <dd>{prompt.process ? <ProcessChain process={prompt.process} /> : <span className="muted">unknown (no peer credentials)</span>}</dd>
            {prompt.process && (
              <>
                <dt>PID / UID</dt>
                <dd className="mono">
                  {prompt.process.pid} / {prompt.process.uid}
                </dd>
              </>
            )}
            <dt>Task</dt>
            <dd data-testid="prompt-task">{prompt.taskName ?? (prompt.task ? prompt.task : <span className="muted">no task</span>)}</dd>
            <dt>Via</dt>
            <dd>{prompt.source}</dd>
          </dl>
        </section>

        <section className="facts">
          <h3>What</h3>
          <dl>
            <dt>Action</dt>
            <dd className="strong">{prompt.action}</dd>
            <dt>Tool</dt>
            <dd className="mono" data-testid="prompt-tool">{prompt.tool}</dd>
            <dt>Resource</dt>
            <dd className="mono" data-testid="prompt-resource">{prompt.resource ?? <span className="muted">none</span>}</dd>
            {prompt.resources.length > 1 && (
              <>
                <dt>Also</dt>
                <dd className="mono small">{prompt.resources.filter((r) => r !== prompt.resource).join(', ')}</dd>
              </>
            )}
            {prompt.cwd && (
              <>
                <dt>In</dt>
                <dd className="mono small">{prompt.cwd}</dd>
              </>
            )}
          </dl>
          <details className="raw-args" data-testid="raw-args">
            <summary>Raw arguments</summary>
            <pre>{prettyJson(prompt.args)}</pre>
          </details>
        </section>
      </div>

      {prompt.ssh && <SshFacts ssh={prompt.ssh} />}

      <section className="facts why" data-testid="risk-reasons">
        <h3>Why it is risky</h3>
        {prompt.risk.reasons.length ? (
          <ul>
            {prompt.risk.reasons.map((r, i) => (
              <li key={i}>{r}</li>
            ))}
          </ul>
        ) : (
          <p className="muted">No particular risk found; asked because no grant covers it.</p>
        )}
        {prompt.risk.level === 'critical' && (
          <p className="critical-note" data-testid="critical-note">
            Critical: no grant will ever approve this kind of request by itself — you will be asked every time.
          </p>
        )}
        {prompt.nearMiss && (
          <p className="near-miss" data-testid="near-miss">
            Almost covered: {prompt.nearMiss}
          </p>
        )}
      </section>

      {specs ? (
        <>
          <TaskGrantsList specs={specs} />
          <TaskGrantsChoices count={specs.length} busy={busy} off={off} denyRef={denyRef} choose={(c) => void choose(c)} />
        </>
      ) : (
        <RequestChoices
          prompt={prompt}
          pattern={pattern}
          setPattern={setPattern}
          minutes={minutes}
          setMinutes={setMinutes}
          busy={busy}
          off={off}
          denyRef={denyRef}
          choose={(c) => void choose(c)}
        />
      )}
      {!guard.armed && <p className="guard-note small muted">Buttons wake up in half a second…</p>}
    </article>
  );
}
