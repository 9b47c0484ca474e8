// Optional desktop notifications: when a grant (not the human) allowed a high-impact
// action, say so, so silent approvals stay visible. Off with Settings → notifications.
import { Notification } from 'electron';
import type { HistoryEvent } from '../contract/approver';

const HIGH_IMPACT = new Set(['write', 'delete', 'transfer', 'execute', 'sign']);

export function notifyIfGrantAllowed(e: HistoryEvent, enabled: boolean): void {
  if (!enabled || !Notification.isSupported()) return;
  if (e.decision !== 'allow' || e.decidedBy !== 'grant' || !HIGH_IMPACT.has(e.action)) return;
  new Notification({
    title: `Allowed by grant: ${e.action}`,
    body: `${e.summary}`.slice(0, 200) + (e.resource ? `\n${e.resource}`.slice(0, 120) : ''),
    silent: true,
  }).show();
}
