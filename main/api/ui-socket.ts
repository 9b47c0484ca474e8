// ui.sock: the human side, for `airlock watch`, the CLI and scripts. A thin adapter over
// the ApproverService method table, plus `subscribe` for push notifications.
import { approverMethods } from '../contract/approver';
import type { ApproverHandlers, HumanCaller } from '../core/approver-service';
import type { NotificationSource, RejectionRecorder } from '../core/ports';
import { createDispatch } from './dispatch';
import { startRpcSocket } from './rpc-socket';

export function startUiSocket(
  sockPath: string,
  service: ApproverHandlers & NotificationSource & { forCaller?(caller: HumanCaller): ApproverHandlers },
  recorder: RejectionRecorder,
): Promise<{ close(): Promise<void> }> {
  return startRpcSocket(sockPath, 'ui.sock', recorder, (peer, notify) => {
    // Per connection: a task this peer starts or ends is recorded with its process.
    const dispatchTable = createDispatch(approverMethods, service.forCaller?.({ transport: 'ui.sock', process: peer.process }) ?? service);
    let unsubscribe: (() => void) | null = null;
    return {
      dispatch: async (method, params) => {
        if (method === 'subscribe') {
          unsubscribe ??= service.subscribe((n) => notify(n.method, n.params));
          return { subscribed: true };
        }
        return dispatchTable(method, params);
      },
      onClose: () => unsubscribe?.(),
    };
  });
}
