// Each task's own request.sock: <tasksDir>/<task>/request.sock, beside its SSH agent.sock
// (DESIGN.md "Task binding"). 0600 in a 0700 directory, peer uid checked (unix-listener).
// Everything sent here belongs to the task, whatever it claims:
// - `request`: decided as the task's (a `task` naming another one is noted in the prompt's
//   risk reasons, never honoured);
// - `task.start`: refused (a new task would escape this one's deny grants);
// - `task.end` / `task.network`: only for this task (no `task`, or this task's id or token);
//   a task may end itself — that only takes its own grants and sockets away;
// - `mcp.tools`: refused (what is learned there would apply to every task);
// - `hook.claudeCode`: the Claude Code hook's call, decided as the task's (no session files).
// The sandbox (main/integrations/exec/sandbox.ts) mounts this directory and nothing else
// of Airlock's.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentMethods, boundTaskCannotStart } from '../contract/agent';
import { RPC, RpcError } from '../contract/rpc';
import { taskIdOf } from '../contract/task-ref';
import type { ProcessInfo } from '../contract/common';
import type { AgentSide, TaskSocketService } from '../core/ports';
import { ensurePrivateDir } from '../os/paths';
import { answerClaudeCodeHook } from '../integrations/claude-code/hook-service';
import { createDispatch } from './dispatch';
import { rejectionRow } from './rpc-message';
import { startRpcSocket } from './rpc-socket';

/** sun_path is 108 bytes on Linux (104 on macOS), including the terminating NUL. */
const MAX_SOCKET_PATH = 103;
const TASK_ID = /^[A-Za-z0-9_:-][A-Za-z0-9_.:-]{0,63}$/;

export class TaskRequestSockets implements TaskSocketService {
  private readonly open_ = new Map<string, { close(opts?: { graceful?: boolean }): Promise<void> }>();

  constructor(
    /** A task's socket serves no task.start, and ends only its own task (through the owner open() is given). */
    private readonly agent: Omit<AgentSide, 'lifecycle'>,
    private readonly tasksDir: string,
  ) {}

  socketPathOf(task: string): string {
    if (!TASK_ID.test(task)) throw new Error(`task id ${JSON.stringify(task)} cannot name a socket directory`);
    return path.join(this.tasksDir, task, 'request.sock');
  }

  async open(task: string, owner?: { end(process?: ProcessInfo): Promise<void> }): Promise<string> {
    if (this.open_.has(task)) return this.socketPathOf(task);
    const p = this.socketPathOf(task);
    if (Buffer.byteLength(p) > MAX_SOCKET_PATH) throw new Error(`socket path ${p} is too long for a Unix socket; choose a shorter AIRLOCK_HOME`);
    ensurePrivateDir(this.tasksDir);
    const { desk, tasks, recorder } = this.agent;
    const own = (p: { task?: string; token?: string }, method: string) => {
      const named = p.task ?? p.token;
      if (named !== undefined && taskIdOf(named) !== task) {
        throw new RpcError(RPC.invalidParams, `invalid params: task: this socket belongs to task ${task}; ${method} works here only for it (leave "task" out)`);
      }
      return task;
    };
    const handle = await startRpcSocket(p, `tasks/${task}/request.sock`, recorder, (peer) => {
      const ctx = { process: peer.process, connection: peer.connection, boundTask: task, get claudeConfigEnv() { return peer.claudeConfigEnv; } };
      return {
        dispatch: createDispatch(agentMethods, {
          request: (r) => desk.ask(r, ctx),
          'task.start': async () => {
            throw boundTaskCannotStart(task);
          },
          'task.end': async (r) => {
            own(r, 'task.end');
            // The task is marked ended before endTask's first await; its sockets close after
            // this reply is on its way (not awaited here: this very socket is one of them).
            owner?.end(peer.process).catch(() => undefined);
            return {};
          },
          'task.network': async (r) => tasks.taskNetwork(own(r, 'task.network')),
          // What the daemon learns about an MCP server's tools is shared by every session (the
          // Claude Code hook of any task reads it), so a sandboxed task could make another
          // task's \`mcp__mail__send\` a silent read by reporting it first. A task's socket
          // teaches nothing; a proxy here still sends its server's annotations with each call.
          'mcp.tools': async () => {
            throw new RpcError(
              RPC.refused,
              `mcp.tools is refused on the socket of task ${task}: what a task reports about an MCP server would apply to every other task; run airlock mcp outside the sandbox to teach the hook`,
            );
          },
          // The Claude Code hook inside the task: every call is the task's (no session files).
          'hook.claudeCode': (r) =>
            answerClaudeCodeHook(r, {
              ask: (q) => desk.ask(q, ctx),
              startTask: async () => {
                throw boundTaskCannotStart(task);
              },
              sessionsDir: null,
              recordRefused: (code, reason, raw) =>
                recorder.recordRejected({
                  ...rejectionRow(`tasks/${task}/request.sock`, `tasks/${task}/request.sock`, 'line', { code, reason, raw, method: 'hook.claudeCode' }, peer.process),
                  connection: peer.connection,
                  task,
                }),
            }),
        }),
        onClose: () => desk.dropConnection(peer.connection),
      };
    });
    this.open_.set(task, handle);
    return p;
  }

  /** Closes the socket (a reply in flight, such as to this task's own task.end, is flushed first). */
  async close(task: string): Promise<void> {
    const h = this.open_.get(task);
    this.open_.delete(task);
    if (h) await h.close({ graceful: true });
    if (TASK_ID.test(task)) {
      try {
        fs.rmdirSync(path.join(this.tasksDir, task));
      } catch {
        // Not empty (the SSH socket's owner removes it) or already gone.
      }
    }
  }

  async closeAll(): Promise<void> {
    for (const task of [...this.open_.keys()]) {
      const h = this.open_.get(task)!;
      this.open_.delete(task);
      await h.close();
    }
  }
}

/**
 * Start-up: no task socket of a previous run is live (each daemon opens its own), so every
 * leftover under tasks/ goes. Call only once this daemon owns the sockets directory.
 */
export function removeLeftoverTaskDirs(tasksDir: string): void {
  // tasks/ is ours alone: a symbolic link (or anything but a directory) planted in its place
  // is removed itself, never followed — following it deleted everything in the directory it
  // named. The first task makes a real 0700 directory.
  try {
    if (!fs.lstatSync(tasksDir).isDirectory()) {
      fs.rmSync(tasksDir, { force: true });
      return;
    }
  } catch {
    return;
  }
  let names: string[];
  try {
    names = fs.readdirSync(tasksDir);
  } catch {
    return;
  }
  for (const n of names) fs.rmSync(path.join(tasksDir, n), { recursive: true, force: true });
}
