// Per-task agent sockets: <tasksDir>/<task>/agent.sock. Requests there belong to the task
// (ctx.boundTask), see only the keys the task's grants name, and cannot add, remove or lock
// keys. Ending the task closes the socket and removes its directory.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TaskSocketService } from '../core/ports';
import { ensurePrivateDir } from '../os/paths';
import type { AgentCore } from './agent-server';
import { AgentListener } from './agent-listener';

/** sun_path is 108 bytes on Linux (104 on macOS), including the terminating NUL. */
const MAX_SOCKET_PATH = 103;
const TASK_ID = /^[A-Za-z0-9_:-][A-Za-z0-9_.:-]{0,63}$/;

export class TaskSockets implements TaskSocketService {
  private readonly open_ = new Map<string, AgentListener>();

  constructor(
    private readonly core: AgentCore,
    private readonly tasksDir: string,
  ) {}

  socketPathOf(task: string): string {
    if (!TASK_ID.test(task)) throw new Error(`task id ${JSON.stringify(task)} cannot name a socket directory`);
    return path.join(this.tasksDir, task, 'agent.sock');
  }

  async open(task: string): Promise<string> {
    const existing = this.open_.get(task);
    if (existing) return existing.socketPath;
    const p = this.socketPathOf(task);
    if (Buffer.byteLength(p) > MAX_SOCKET_PATH) throw new Error(`socket path ${p} is too long for a Unix socket; choose a shorter AIRLOCK_HOME`);
    ensurePrivateDir(this.tasksDir);
    const l = new AgentListener(this.core, p, task);
    await l.listen();
    this.open_.set(task, l);
    return p;
  }

  async close(task: string): Promise<void> {
    const l = this.open_.get(task);
    this.open_.delete(task);
    if (l) await l.close();
    if (TASK_ID.test(task)) fs.rmSync(path.join(this.tasksDir, task), { recursive: true, force: true });
  }

  async closeAll(): Promise<void> {
    for (const task of [...this.open_.keys()]) await this.close(task);
  }
}
