import { useUi } from '../state/ui-store';
import { V } from './Visible';

export function Toasts() {
  const toasts = useUi((s) => s.toasts);
  const dismiss = useUi((s) => s.dismiss);
  return (
    <div className="toasts" aria-live="polite">
      {toasts.map((t) => (
        <div key={t.id} className={`toast ${t.kind}`} role={t.kind === 'error' ? 'alert' : 'status'} onClick={() => dismiss(t.id)} data-testid="toast">
          <V text={t.text} />
          {t.action && (
            <button
              className="btn small toast-action"
              data-testid="toast-action"
              onClick={(e) => {
                e.stopPropagation();
                dismiss(t.id);
                void t.action?.run();
              }}
            >
              {t.action.label}
            </button>
          )}
        </div>
      ))}
    </div>
  );
}
