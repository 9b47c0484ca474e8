// Optional desktop notifications: when a grant (not the human) allowed a high-impact
// action, say so, so silent approvals stay visible. Off with Settings → notifications.
import { Notification } from 'electron';
import type { HistoryEvent } from '../contract/approver';
import { visible } from '../../shared/display-text';

const HIGH_IMPACT = new Set(['write', 'delete', 'transfer', 'execute', 'sign']);

export function notifyIfGrantAllowed(e: HistoryEvent, enabled: boolean): void {
  if (!enabled || !Notification.isSupported()) return;
  if (e.decision !== 'allow' || e.decidedBy !== 'grant' || !HIGH_IMPACT.has(e.action)) return;
  new Notification(notificationText(e)).show();
}

/** Title and body of the notice. Summary and resource are the agent's text: notification
 *  daemons render bidi overrides and some honour markup-free control characters, so
 *  both are shown escaped (history keeps them raw). */
export function notificationText(e: Pick<HistoryEvent, 'action' | 'summary' | 'resource'>): { title: string; body: string; silent: true } {
  return {
    title: `Allowed by grant: ${e.action}`,
    body: visible(e.summary).slice(0, 200) + (e.resource ? `\n${visible(e.resource)}`.slice(0, 120) : ''),
    silent: true,
  };
}
