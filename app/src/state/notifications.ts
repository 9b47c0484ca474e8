// One subscription to the core's push side, fanned out to the stores.
import { airlock, onConnectionState } from '../bridge';
import { useConnection } from './connection-store';
import { useHistory } from './history-store';
import { useLists } from './lists-store';
import { usePending } from './pending-store';
import { attempt } from './ui-store';

export function wireNotifications(): () => void {
  const off = airlock().onNotification((n) => {
    switch (n.method) {
      case 'pending.added':
        usePending.getState().added(n.params);
        break;
      case 'pending.updated':
        usePending.getState().updated(n.params);
        break;
      case 'pending.resolved':
        usePending.getState().resolved(n.params.id);
        break;
      case 'event.recorded':
        useHistory.getState().recorded(n.params);
        break;
      case 'grants.changed':
        void useLists.getState().loadGrants().catch(() => {});
        break;
      case 'tasks.changed':
        void useLists.getState().loadTasks().catch(() => {});
        break;
      case 'keys.changed':
        void useLists.getState().loadKeys();
        break;
    }
  });
  // After a web socket reconnect, whatever happened meanwhile was not pushed: reload.
  // While it is down, the prompts on screen are expired: the daemon denies what it cannot
  // deliver, so no button may pretend otherwise (issue 11: honest states).
  let first = true;
  const offState = onConnectionState((s) => {
    useConnection.getState().set(s);
    if (s !== 'open') {
      usePending.getState().lost();
      return;
    }
    if (first) {
      first = false;
      return;
    }
    void attempt('Reload failed', () => usePending.getState().load());
    void attempt('Reload failed', () => useHistory.getState().reload());
    void useLists.getState().loadGrants().catch(() => {});
    void useLists.getState().loadTasks().catch(() => {});
  });
  return () => {
    off();
    offState();
  };
}
