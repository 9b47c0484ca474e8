// What `subscribe` delivers on every human-side transport (ui.sock, the web socket,
// Electron IPC): one bus the core parts publish to.
import type { ApproverNotification } from '../contract/approver';
import type { NotificationSource } from './ports';

export class NotificationBus implements NotificationSource {
  private readonly listeners = new Set<(n: ApproverNotification) => void>();

  subscribe(listener: (n: ApproverNotification) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(n: ApproverNotification): void {
    for (const l of this.listeners) {
      try {
        l(n);
      } catch {
        // A broken listener (e.g. a closed socket) must not break the core.
      }
    }
  }
}
