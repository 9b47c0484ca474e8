// request.sock: the agent side. It can ask and start/end tasks; nothing here decides,
// grants or reads history.
import { agentMethods } from '../contract/agent';
import type { Broker } from '../core/broker';
import { createDispatch } from './dispatch';
import { startRpcSocket } from './rpc-socket';

export function startRequestSocket(sockPath: string, broker: Broker): Promise<{ close(): Promise<void> }> {
  return startRpcSocket(sockPath, 'request.sock', broker, (peer) => {
    const ctx = { process: peer.process, connection: peer.connection };
    return {
      dispatch: createDispatch(agentMethods, {
        request: (p) => broker.ask(p, ctx),
        'task.start': (p) => broker.startTask(p, ctx),
        'task.end': async (p) => {
          await broker.endTask(p.task);
          return {};
        },
        'task.network': async (p) => broker.taskNetwork(p.task),
      }),
      // A requester that goes away is answered (deny) so history has its requests.
      onClose: () => broker.dropConnection(peer.connection),
    };
  });
}
