// A scripted human on ui.sock: waits for the next prompt and answers it.
import type { Prompt } from '../../main/contract/approver';
import type { RpcClient } from '../../main/client/rpc-client';
import type { AgentAnswer } from '../../main/contract/agent';

export class Human {
  private readonly seen: Prompt[] = [];
  private waiters: ((p: Prompt) => void)[] = [];

  private constructor(readonly ui: RpcClient) {
    ui.onNotification = (method, params) => {
      if (method !== 'pending.added') return;
      const w = this.waiters.shift();
      if (w) w(params as Prompt);
      else this.seen.push(params as Prompt);
    };
  }

  static async on(ui: RpcClient): Promise<Human> {
    const h = new Human(ui);
    await ui.call('subscribe');
    return h;
  }

  /** The next prompt (bounded wait; generous: a loaded CI machine can stall the daemon for seconds). */
  next(timeoutMs = 30_000): Promise<Prompt> {
    const p = this.seen.shift();
    if (p) return Promise.resolve(p);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        reject(new Error(`no prompt within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = (x: Prompt) => {
        clearTimeout(t);
        resolve(x);
      };
      this.waiters.push(done);
    });
  }

  /** Prompts that arrived and were not taken with next(). */
  unanswered(): Prompt[] {
    return [...this.seen];
  }

  decide(id: string, decision: 'allow' | 'deny', scope: 'once' | 'task' | 'duration' | 'always' = 'once', extra: object = {}) {
    return this.ui.call<{ grant?: { id: string } }>('pending.decide', { id, decision, scope, ...extra });
  }
}

export type Asked = { answer: Promise<AgentAnswer>; prompt: Prompt };

/** An agent asks for a write (fields of `req` override); returns its answer-to-be and the prompt the human got. */
export async function ask(agent: RpcClient, human: Human, req: Record<string, unknown>): Promise<Asked> {
  const answer = agent.call<AgentAnswer>('request', { source: 'api', action: 'write', tool: 'fs.write', ...req });
  answer.catch(() => undefined);
  return { answer, prompt: await human.next() };
}
