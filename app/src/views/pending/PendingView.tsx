import { usePending } from '../../state/pending-store';
import { PromptCard } from './PromptCard';

export function PendingView() {
  const prompts = usePending((s) => s.prompts);
  const loaded = usePending((s) => s.loaded);
  if (!loaded) return <p className="muted">Loading…</p>;
  if (!prompts.length) {
    return (
      <div className="empty" data-testid="pending-empty">
        <h2>Nothing waiting</h2>
        <p className="muted">Requests that no grant covers appear here and in their own pop-up.</p>
      </div>
    );
  }
  return (
    <div className="pending-list">
      {prompts.length > 1 && <p className="muted small">{prompts.length} requests waiting; shortcuts act on the first.</p>}
      {prompts.map((p, i) => (
        <PromptCard key={p.id} prompt={p} keyboard={i === 0} />
      ))}
    </div>
  );
}
