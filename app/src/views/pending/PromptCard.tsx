// One pending request, laid out as DESIGN.md "What a prompt must show" and issue 11: the
// literal command or path first (monospace, the full text one click away), a headline of
// at most two lines, who, what, why it is risky, and choices that stay visible (sticky)
// and grow in friction with the risk. Every key and button acts on this card's prompt id
// and no other; the card is keyed by id, so its input guard starts afresh whenever
// another prompt comes on screen.
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { DecideParams, Prompt } from '../../../../preload/types';
import { allowedChoices, literalOf, type Choice } from '../../../../shared/prompt-choices';
import { grantInWords } from '../../../../shared/grant-words';
import { blankRunWords, foldBlankLines, literalEnding } from '../../../../shared/literal-fold';
import { airlock } from '../../bridge';
import { Countdown } from '../../components/Countdown';
import { ProcessChain } from '../../components/ProcessChain';
import { RiskBadge } from '../../components/RiskBadge';
import { useNow } from '../../components/use-now';
import { V, vis } from '../../components/Visible';
import { prettyJson } from '../../format';
import { usePending } from '../../state/pending-store';
import { attempt, useUi } from '../../state/ui-store';
import { SshFacts } from './SshFacts';
import { AgentChain, ConsequenceLines } from './Consequence';
import { RequestChoices } from './RequestChoices';
import { TaskGrantsChoices, TaskGrantsList, requestedGrants } from './TaskGrantsRequest';
import { useInputGuard } from './use-input-guard';
import { useStillChoices } from './use-still-choices';
import { EgressFacts, McpFacts } from './RequestOriginFacts';
import { ConditionPicker, ServerReadOnlyChoice } from './GrantCondition';

const SHORTCUTS: Record<string, Choice> = { Escape: 'deny', d: 'deny', o: 'once', t: 'task', m: 'duration', a: 'always' };
/** A task's grant request has two answers: refuse, or accept them all ("once" = this request). */
const GRANT_REQUEST_SHORTCUTS: Record<string, Choice> = { Escape: 'deny', d: 'deny', a: 'once' };
/** Above this, the literal is folded to a few lines with a "show all" button. */
const LITERAL_FOLD_CHARS = 240;

function initialPattern(p: Prompt): { tool: string; resource: string } {
  if (p.suggestion) return { tool: p.suggestion.tool, resource: p.suggestion.resource };
  // Empty resource: the core grants exactly this request — every resource, or for a shell
  // command its exact parts. Prefilling the first resource instead would grant a raw
  // string read as a glob (and, for a command, everything run in that directory).
  return { tool: p.tool, resource: '' };
}

/** A folded literal: each run of blank lines is one marked line that counts them. */
function FoldedLiteral({ text }: { text: string }) {
  return (
    <>
      {foldBlankLines(text).map((l, i) => (
        <span key={i}>
          {i > 0 && '\n'}
          {'blank' in l ? (
            <span className="esc" data-testid="blank-run" title="blank lines the agent sent, counted (Show all draws them)">
              {blankRunWords(l.blank)}
            </span>
          ) : (
            <V text={l.text} multiline />
          )}
        </span>
      ))}
    </>
  );
}

export function PromptCard({ prompt, keyboard }: { prompt: Prompt; keyboard: boolean }) {
  const decide = usePending((s) => s.decide);
  const offline = usePending((s) => s.offline);
  const sameTask = usePending(useShallow((s) => (prompt.task ? s.prompts.filter((p) => p.task === prompt.task).map((p) => p.id) : [])));
  const toast = useUi((s) => s.toast);
  const guard = useInputGuard();
  const [pattern, setPattern] = useState(() => initialPattern(prompt));
  const [minutes, setMinutes] = useState(15);
  const [busy, setBusy] = useState(false);
  const [confirmAlways, setConfirmAlways] = useState(false);
  const [showAll, setShowAll] = useState(false);
  /** A condition (CEL over args) for the grant a choice makes; empty: none. */
  const [when, setWhen] = useState('');
  const denyRef = useRef<HTMLButtonElement>(null);
  const uid = useId();
  const now = useNow(500);
  const specs = requestedGrants(prompt);
  /** task.start grants the human ticked "confirm" on (wildcards of high-impact actions). */
  const [confirmed, setConfirmed] = useState<number[]>([]);
  const allowed = allowedChoices(prompt);
  // Honest states: past its timeout, or with Airlock unreachable, the request is denied —
  // no button may suggest that an answer still counts.
  const expired = offline || now >= prompt.expiresAt;
  const literal = literalOf(prompt);
  const summary = prompt.summary || `${prompt.tool} ${prompt.resource ?? ''}`;
  // The prompt changed in place (pending.updated): more identical requests joined it, so one
  // answer now answers each of them, or anything else it shows changed. What a click does
  // just changed, and the card is guarded afresh (an agent that adds nineteen copies of a
  // payment as the pointer moves must not have them paid by that click).
  const waiting = prompt.waiting ?? 1;
  const shown = JSON.stringify(prompt);
  const seenShown = useRef(shown);
  const rearm = guard.rearm;
  useEffect(() => {
    if (seenShown.current === shown) return;
    seenShown.current = shown;
    rearm();
  }, [shown, rearm]);

  async function choose(choice: Choice | 'serverReadOnly'): Promise<void> {
    if (busy || expired || !guard.ready()) return;
    if (choice === 'serverReadOnly') {
      if (specs || !allowed.includes('task') || !prompt.mcpServer) return;
      return send('task', { id: prompt.id, decision: 'allow', scope: 'task', serverReadOnly: true });
    }
    if (!specs && !allowed.includes(choice)) return;
    if (choice === 'always' && !confirmAlways) {
      // "Always" is never one step: the first press opens the confirmation, whose button
      // is guarded afresh, so a key pressed twice cannot make a standing grant.
      setConfirmAlways(true);
      guard.rearm();
      return;
    }
    const grantPattern: { tool: string; resource?: string } = { tool: pattern.tool.trim() || prompt.tool };
    if (pattern.resource.trim()) grantPattern.resource = pattern.resource.trim();
    const condition = when.trim() ? { when: when.trim() } : {};
    const params: DecideParams =
      choice === 'deny'
        ? { id: prompt.id, decision: 'deny', scope: 'once' }
        : choice === 'once'
          ? { id: prompt.id, decision: 'allow', scope: 'once', ...(specs && confirmed.length ? { confirmGrants: confirmed } : {}) }
          : choice === 'task'
            ? { id: prompt.id, decision: 'allow', scope: 'task', pattern: grantPattern, ...condition }
            : choice === 'duration'
              ? { id: prompt.id, decision: 'allow', scope: 'duration', durationSec: Math.max(1, Math.round(minutes * 60)), pattern: grantPattern, ...condition }
              : { id: prompt.id, decision: 'allow', scope: 'always', pattern: grantPattern, ...condition };
    return send(choice, params);
  }

  async function send(choice: Choice, params: DecideParams): Promise<void> {
    setBusy(true);
    const done = await attempt('Could not decide', async () => {
      const { grant, notCovered } = await decide(params);
      const accepted = specs ? specs.filter((g) => !g.needsConfirmation || confirmed.includes(g.index)).length : 0;
      const what = `${prompt.id} (${vis(summary).slice(0, 80)})`;
      if (params.serverReadOnly) {
        toast(`Only reads from “${vis(prompt.mcpServer ?? '')}” for task “${vis(prompt.taskName ?? prompt.task)}”: this ${prompt.action} was ${prompt.action === 'read' ? 'allowed' : 'denied'} (${prompt.id}). Grants shows the two grants.`);
      } else if (grant && !specs) {
        // Undo takes the grant back (the request itself was already allowed, once).
        const id = grant.id;
        // An edited pattern that leaves this request out: it was answered once, and the grant is only for what it covers.
        const head = notCovered
          ? `${params.decision === 'deny' ? 'Denied' : 'Allowed'} ${what} once: the grant made does not cover it (${vis(notCovered)}); ${grantInWords(grant, prompt.taskName)}`
          : `${params.decision === 'deny' ? 'Denied' : 'Allowed'} ${what}; ${grantInWords(grant, prompt.taskName)}`;
        toast(head, 'info', {
          label: 'Undo grant',
          run: () => void attempt('Could not undo', async () => {
            await airlock()['grants.revoke']({ id });
            toast(`Grant ${id} revoked: the next such request asks again`);
          }),
        });
      } else toast(choice === 'deny' ? `Denied ${what}` : specs ? `Accepted ${accepted} of ${specs.length} grant(s) for the task` : `Allowed once: ${what}`);
      return true;
    });
    if (!done) setBusy(false);
  }

  /** Denies every waiting prompt of this task, by id, in one action. */
  async function denyTask(): Promise<void> {
    if (busy || expired || !guard.ready() || !prompt.task) return;
    setBusy(true);
    const ids = [...sameTask];
    let denied = 0;
    for (const id of ids) {
      const ok = await attempt(`Could not deny ${id}`, async () => {
        await decide({ id, decision: 'deny', scope: 'once' });
        return true;
      });
      if (ok) denied++;
    }
    toast(`Denied ${denied} request${denied === 1 ? '' : 's'} from task “${vis(prompt.taskName ?? prompt.task)}”`);
    setBusy(false);
  }

  // Keyboard shortcuts act on this card's prompt only (the one on screen).
  const chooseRef = useRef(choose);
  chooseRef.current = choose;
  const denyTaskRef = useRef(denyTask);
  denyTaskRef.current = denyTask;
  const confirmRef = useRef(confirmAlways);
  confirmRef.current = confirmAlways;
  // A layout effect: the listener exists from the moment the card is in the DOM, so even
  // the earliest key is seen (and swallowed by the guard) rather than slipping past.
  useLayoutEffect(() => {
    if (!keyboard) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const inField = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement;
      if (inField && e.key !== 'Escape') return;
      if (confirmRef.current) {
        // While "Always" waits for its confirmation, Esc steps back; no key confirms.
        if (e.key === 'Escape') {
          e.preventDefault();
          setConfirmAlways(false);
        }
        return;
      }
      if (e.key === 'D' && !specs) {
        e.preventDefault();
        void denyTaskRef.current();
        return;
      }
      const choice = (specs ? GRANT_REQUEST_SHORTCUTS : SHORTCUTS)[e.key.length === 1 ? e.key.toLowerCase() : e.key];
      if (!choice) return;
      e.preventDefault();
      void chooseRef.current(choice);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [keyboard, specs]);

  // A card comes on screen from its top: after the human scrolled down a long card and answered
  // it, the next one kept that scroll position, its risk badge, headline and literal above the
  // viewport (black-box wave 8). Before the first paint, so the guard's half second counts
  // from a frame that shows them.
  const cardRef = useRef<HTMLElement>(null);
  // A button that moved, or was covered, under a resting pointer holds the guard again.
  useStillChoices(cardRef, guard.hold);
  useLayoutEffect(() => {
    const card = cardRef.current;
    if (!card || card.getBoundingClientRect().top >= 0) return;
    for (let el: HTMLElement | null = card.parentElement; el; el = el.parentElement) if (el.scrollTop > 0) el.scrollTop = 0;
    const doc = document.scrollingElement;
    if (doc && doc.scrollTop > 0) doc.scrollTop = 0;
    if (card.getBoundingClientRect().top < 0) card.scrollIntoView({ block: 'start' });
  }, []);

  useEffect(() => {
    // Deny is the default: Enter on a fresh prompt denies (and is guarded like the rest).
    if (keyboard) denyRef.current?.focus({ preventScroll: true });
  }, [keyboard]);

  const off = busy || !guard.armed;
  const fold = literal.length > LITERAL_FOLD_CHARS || literal.split('\n').length > 4;
  /** Folded, how the literal ends is shown too: padding cannot push what it runs out of sight. */
  const literalEnd = fold ? literalEnding(literal) : null;
  return (
    <article
      ref={cardRef}
      className={`prompt-card risk-border-${prompt.risk.level}${expired ? ' expired' : ''}`}
      role="alertdialog"
      aria-modal="false"
      data-testid="prompt"
      data-prompt-id={prompt.id}
      data-armed={guard.armed ? 'true' : 'false'}
      data-swallowed={guard.swallowed}
      data-expired={expired ? 'true' : 'false'}
      aria-labelledby={`${uid}-title`}
      aria-describedby={`${uid}-literal ${uid}-risk`}
    >
      <header className="prompt-head">
        <RiskBadge level={prompt.risk.level} />
        <span className={`badge action action-${prompt.action}`}>{prompt.action}</span>
        <span className="prompt-id mono small muted" data-testid="prompt-id" title="Every answer goes to this request id">
          {prompt.id}
        </span>
        <h2 id={`${uid}-title`} className="prompt-summary" data-testid="prompt-summary" title={vis(summary)}>
          <V text={summary} />
        </h2>
      </header>
      {waiting > 1 && (
        <p className="prompt-waiting strong" role="status" data-testid="prompt-waiting">
          {waiting} identical requests are waiting: your answer (even “Allow once”) answers each of them.
        </p>
      )}
      <div className={`literal-wrap${fold && !showAll ? ' folded' : ''}`}>
        <pre id={`${uid}-literal`} className="literal" data-testid="prompt-literal">
          {fold && !showAll ? <FoldedLiteral text={literal} /> : <V text={literal} multiline />}
        </pre>
        {fold && !showAll && literalEnd !== null && (
          <div className="literal-end" data-testid="literal-end">
            <span className="muted small">ends with</span>
            <pre className="literal"><V text={literalEnd} multiline /></pre>
          </div>
        )}
        {fold && (
          <button className="btn link small" data-testid="literal-toggle" aria-expanded={showAll} onClick={() => setShowAll(!showAll)}>
            {showAll ? 'Show less' : `Show all (${literal.length.toLocaleString()} characters)`}
          </button>
        )}
      </div>
      <ConsequenceLines prompt={prompt} />
      {expired ? (
        <p className="expired-note" role="status" data-testid="prompt-expired">
          {offline ? "Expired — denied. Airlock can't be reached, so this request was not allowed." : 'Expired — denied: no answer in time.'}
        </p>
      ) : (
        <Countdown createdAt={prompt.createdAt} expiresAt={prompt.expiresAt} announce={keyboard} />
      )}

      <div className="prompt-grid">
        <section className="facts" aria-label="Who asks">
          <h3>Who</h3>
          <dl>
            {prompt.agent?.length ? (
              <>
                <dt>Agent</dt>
                <dd><AgentChain prompt={prompt} /></dd>
              </>
            ) : null}
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
            <dd data-testid="prompt-task">{prompt.taskName ? <V text={prompt.taskName} /> : prompt.task ? prompt.task : <span className="muted">no task</span>}</dd>
            <dt>Via</dt>
            <dd>{prompt.source}</dd>
            {prompt.remote && (
              <>
                <dt>From</dt>
                <dd data-testid="prompt-remote">
                  <span className="badge forwarded">remote <V text={prompt.remote.name} /></span>{' '}
                  <span className="mono small"><V text={prompt.remote.via} /></span>
                </dd>
              </>
            )}
          </dl>
        </section>

        <section className="facts" aria-label="What it does">
          <h3>What</h3>
          <dl>
            <dt>Action</dt>
            <dd className="strong">{prompt.action}</dd>
            <dt>Tool</dt>
            <dd className="mono" data-testid="prompt-tool"><V text={prompt.tool} /></dd>
            <dt>Resource</dt>
            <dd className="mono" data-testid="prompt-resource">{prompt.resource !== null ? <V text={prompt.resource} /> : <span className="muted">none</span>}</dd>
            {prompt.resources.length > 1 && (
              <>
                <dt>Also</dt>
                <dd className="mono small"><V text={prompt.resources.filter((r) => r !== prompt.resource).join(', ')} /></dd>
              </>
            )}
            {prompt.cwd && (
              <>
                <dt>In</dt>
                <dd className="mono small"><V text={prompt.cwd} /></dd>
              </>
            )}
          </dl>
          <details className="raw-args" data-testid="raw-args">
            <summary>Raw arguments</summary>
            <pre><V text={prettyJson(prompt.args)} multiline /></pre>
          </details>
        </section>
      </div>

      <McpFacts prompt={prompt} />
      <EgressFacts prompt={prompt} />
      {prompt.ssh && <SshFacts ssh={prompt.ssh} />}

      <section className="facts why" data-testid="risk-reasons" id={`${uid}-risk`} aria-label="Why it is risky">
        <h3>Why it is risky</h3>
        {prompt.risk.reasons.length ? (
          <ul>
            {prompt.risk.reasons.map((r, i) => (
              <li key={i}><V text={r} /></li>
            ))}
          </ul>
        ) : (
          <p className="muted">No particular risk found; asked because no grant covers it.</p>
        )}
        {prompt.risk.level === 'critical' && (
          <p className="critical-note" data-testid="critical-note">
            Critical: only Allow once is offered — no grant will ever approve this kind of request by itself.
          </p>
        )}
        {prompt.nearMiss && (
          <p className="near-miss" data-testid="near-miss">
            Almost covered: <V text={prompt.nearMiss} />
          </p>
        )}
      </section>

      {expired ? null : specs ? (
        <>
          <TaskGrantsList
            grants={specs}
            confirmed={confirmed}
            disabled={off}
            toggle={(i) => setConfirmed((c) => (c.includes(i) ? c.filter((x) => x !== i) : [...c, i]))}
          />
          <TaskGrantsChoices grants={specs} confirmed={confirmed} busy={busy} off={off} denyRef={denyRef} choose={(c) => void choose(c)} />
        </>
      ) : (
        <>
        {allowed.some((c) => c === 'task' || c === 'duration' || c === 'always') && <ConditionPicker prompt={prompt} when={when} setWhen={setWhen} disabled={busy} />}
        {allowed.includes('task') && <ServerReadOnlyChoice prompt={prompt} busy={busy} off={off} choose={() => void choose('serverReadOnly')} />}
        <RequestChoices
          prompt={prompt}
          allowed={allowed}
          pattern={pattern}
          setPattern={setPattern}
          minutes={minutes}
          setMinutes={setMinutes}
          busy={busy}
          off={off}
          denyRef={denyRef}
          choose={(c) => void choose(c)}
          confirmAlways={confirmAlways}
          cancelAlways={() => setConfirmAlways(false)}
          sameTask={sameTask.length}
          denyTask={() => void denyTask()}
          waiting={waiting}
        />
        </>
      )}
      {/* Always laid out, shown only while the guard holds: the note coming and going must not move the buttons (use-still-choices.ts would take that for a shift). */}
      {!expired && (
        <p className={`guard-note small muted${guard.armed ? ' quiet' : ''}`} aria-hidden={guard.armed}>
          Buttons wake up in half a second…
        </p>
      )}
    </article>
  );
}
