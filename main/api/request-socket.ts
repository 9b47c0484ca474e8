// request.sock: the agent side. It can ask and start/end tasks; nothing here decides,
// grants or reads history. Acting as an existing task here needs the task's token
// (TaskFacts.authorizeTask); a task's own socket is main/api/task-request-sockets.ts.
import { agentMethods } from '../contract/agent';
import type { ProcessInfo, RemoteInfo } from '../contract/common';
import { RPC, RpcError } from '../contract/rpc';
import type { AgentSide, TaskActor } from '../core/ports';
import { answerClaudeCodeHook } from '../integrations/claude-code/hook-service';
import { sessionOwnerAlive } from '../os/session-owner';
import { sshDestinationOf } from '../ssh/ssh-argv';
import * as path from 'node:path';
import { createDispatch } from './dispatch';
import { rejectionRow } from './rpc-message';
import { startRpcSocket } from './rpc-socket';

/**
 * The SSH connection a remote's request came through: the local process holding the
 * socket's other end — for `ssh -R` that is the `ssh` client forwarding it, whose command
 * line names the server.
 */
export function remoteVia(p: ProcessInfo): string {
  const dest = sshDestinationOf(p);
  if (dest) return `ssh ${dest.user ? `${dest.user}@` : ''}${dest.host}${dest.port ? `:${dest.port}` : ''} (pid ${p.pid})`;
  // Someone on this machine connected to the remote's socket directly: say so.
  const cmd = p.argv.length ? p.argv.join(' ') : (p.exe ?? 'unknown process');
  return `${cmd.slice(0, 200)} (pid ${p.pid}, not an ssh connection)`;
}

/**
 * `remote`: this socket is a remote's (airlock remote): every request on it is marked as
 * coming from that remote, whatever it says.
 */
export function startRequestSocket(sockPath: string, agent: AgentSide, opts: { remote?: string } = {}): Promise<{ close(): Promise<void> }> {
  const name = opts.remote ? `remotes/${opts.remote}/request.sock` : 'request.sock';
  const { desk, tasks, lifecycle } = agent;
  return startRpcSocket(sockPath, name, agent.recorder, (peer) => {
    const remote: RemoteInfo | undefined = opts.remote ? { name: opts.remote, via: remoteVia(peer.process) } : undefined;
    const ctx = { process: peer.process, connection: peer.connection, ...(remote ? { remote } : {}), get claudeConfigEnv() { return peer.claudeConfigEnv; } };
    // Who starts or ends a task through this connection (its history row): the peer process, this remote.
    const agentActor = (source: string, via: string): TaskActor => ({ side: 'agent', source, via, process: peer.process, ...(remote ? { remote } : {}) });
    // The task a call may end or inspect: its token, and (through a remote's socket) a task
    // started through that remote. A refusal is recorded with the task, so the task's own
    // history shows that a remote tried (-32001 is an answer, which the one JSON-RPC path
    // does not record by itself).
    const controlled = (p: { task?: string; token?: string }, method: string): string => {
      const id = tasks.authorizeTask(p);
      const why = tasks.controlRefusal(id, opts.remote ?? null, method);
      if (why === null) return id;
      agent.recorder.recordRejected({
        source: name, tool: method, summary: `refused "${method}" of task ${id} on ${name}`, raw: p, reason: why,
        process: peer.process, task: id, connection: peer.connection, ...(remote ? { remote } : {}),
      });
      throw new RpcError(RPC.refused, why);
    };
    return {
      dispatch: createDispatch(agentMethods, {
        // The policy checks the token of any task a request names.
        request: (p) => desk.ask(p, ctx),
        'task.start': (p) => lifecycle.startTask(p, ctx, agentActor('api', name)),
        'task.end': async (p) => {
          await lifecycle.endTask(controlled(p, 'task.end'), { why: 'ended', by: agentActor('api', name) });
          return {};
        },
        'task.network': async (p) => tasks.taskNetwork(controlled(p, 'task.network')),
        // What the daemon learns about an MCP server's tools classifies this machine's calls
        // too (the Claude Code hook reads it), so a server could make a local agent's
        // `mcp__mail__tidy_inbox` a silent read by reporting it first. A remote teaches
        // nothing, as a task's socket does not; its proxy still sends the annotations with each call.
        'mcp.tools': async (p) => {
          if (opts.remote) {
            throw new RpcError(RPC.refused, `mcp.tools is refused on the socket of remote ${opts.remote}: what a remote reports about an MCP server would classify this machine's calls too; its airlock mcp still sends the annotations with each call`);
          }
          return tasks.learnMcpTools(p);
        },
        // The Claude Code hook's whole call, decided here as this connection (the hook's process
        // tree, this remote). Sessions are kept beside this socket: a remote's apart from ours.
        'hook.claudeCode': (p) =>
          answerClaudeCodeHook(p, {
            ask: (r) => desk.ask(r, ctx),
            startTask: (t) => lifecycle.startTask(t, ctx, agentActor('claude-code', `the Claude Code hook (${name})`)),
            sessionsDir: path.join(path.dirname(sockPath), 'claude-code'),
            // A session's task is its Claude Code process's: another process that names the
            // session id gets a task of its own. Through a remote every call comes from the
            // forwarding ssh (its owner: what runs it, e.g. `airlock remote`), so the server's
            // sessions are not told apart from each other, but a local process connecting to the
            // remote's socket directly is another owner and never gets a remote session's task.
            sessionOwner: () => peer.sessionOwner,
            ownerAlive: sessionOwnerAlive,
            // A session let go (its Claude Code exited, or made way: hook-service's session files)
            // ends its task, by the token the daemon kept for it.
            endTask: async (token, why) => void (await lifecycle.endTask(tasks.authorizeTask({ task: token }), { why, by: { side: 'system', source: 'claude-code', via: `the Claude Code hook (${name})`, ...(remote ? { remote } : {}) } })),
            recordRefused: (code, reason, raw) =>
              agent.recorder.recordRejected({
                ...rejectionRow(name, name, 'line', { code, reason, raw, method: 'hook.claudeCode' }, peer.process),
                connection: peer.connection,
                ...(remote ? { remote } : {}),
              }),
          }),
      }),
      // A requester that goes away is answered (deny) so history has its requests.
      onClose: () => desk.dropConnection(peer.connection),
      ...(remote ? { remote } : {}),
    };
  }, opts.remote ? { remote: opts.remote } : {});
}
