// Pending: one prompt in front at a time, with a compact "1 of N" queue that the human
// moves through on purpose (buttons, or j/k). A new request joins the queue without
// taking the screen; when the prompt on screen is answered, the next comes up with its
// own, fresh input guard (issue 11 item 1).
import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { RiskBadge } from '../../components/RiskBadge';
import { V, vis } from '../../components/Visible';
import { currentPrompt, usePending } from '../../state/pending-store';
import { PromptCard } from './PromptCard';

function Queue() {
  const prompts = usePending(useShallow((s) => s.prompts));
  const current = usePending((s) => currentPrompt(s));
  const select = usePending((s) => s.select);
  const move = usePending((s) => s.move);
  const i = prompts.findIndex((p) => p.id === current?.id);
  return (
    <nav className="queue" aria-label="Waiting requests" data-testid="queue">
      <button className="btn small" onClick={() => move(-1)} disabled={i <= 0} data-testid="queue-prev">
        ‹ Previous <kbd>K</kbd>
      </button>
      <span className="queue-pos" data-testid="queue-position" aria-live="polite">
        {i + 1} of {prompts.length}
      </span>
      <button className="btn small" onClick={() => move(1)} disabled={i >= prompts.length - 1} data-testid="queue-next">
        Next <kbd>J</kbd> ›
      </button>
      <ol className="queue-items">
        {prompts.map((p, n) => (
          <li key={p.id}>
            <button
              className={`queue-item${p.id === current?.id ? ' current' : ''}`}
              aria-current={p.id === current?.id ? 'true' : undefined}
              onClick={() => select(p.id)}
              title={vis(p.summary)}
              data-testid="queue-item"
              data-queue-id={p.id}
            >
              <span className="queue-n">{n + 1}</span> <RiskBadge level={p.risk.level} /> <span className="queue-summary"><V text={p.summary || p.tool} /></span>
            </button>
          </li>
        ))}
      </ol>
    </nav>
  );
}

export function PendingView() {
  const count = usePending((s) => s.prompts.length);
  const loaded = usePending((s) => s.loaded);
  const current = usePending((s) => currentPrompt(s));
  const move = usePending((s) => s.move);

  // j/k move through the queue; they never decide anything.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLSelectElement) return;
      if (e.key === 'j') move(1);
      else if (e.key === 'k') move(-1);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [move]);

  if (!loaded) return <p className="muted">Loading…</p>;
  if (!current) {
    return (
      <div className="empty" data-testid="pending-empty">
        <h2>Nothing waiting</h2>
        <p className="muted">Requests that no grant covers appear here and in their own pop-up.</p>
      </div>
    );
  }
  return (
    <div className="pending-list">
      {count > 1 && <Queue />}
      <PromptCard key={current.id} prompt={current} keyboard />
    </div>
  );
}
