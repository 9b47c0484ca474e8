// Seeds a history fast for the scale tests: N events through the real Store (so the hash
// chain, the FTS index and the chain head are exactly what the daemon writes), all in
// one transaction. Only main/store touches SQLite; this file uses the Store class.
import type { NewEvent } from '../../main/store';
import { Store } from '../../main/store';

const SOURCES = ['api', 'exec', 'claude-code', 'mcp', 'ssh'] as const;
const ACTIONS = ['read', 'write', 'delete', 'transfer', 'execute', 'sign', 'other'] as const;
const WORDS = ['build', 'deploy', 'config', 'readme', 'index', 'schema', 'report', 'backup', 'invoice', 'notes'];

/** Every RARE_EVERY-th event mentions RARE_WORD (for a selective search). */
export const RARE_WORD = 'zanzibar';
export const RARE_EVERY = 1000;

export function seedHistory(dbFile: string, count: number, opts: { task?: string | null; startTs?: number } = {}): { ms: number } {
  const t0 = Date.now();
  const store = new Store(dbFile);
  try {
    const start = opts.startTs ?? Date.now() - count * 1000;
    const insert = store.db.transaction(() => {
      for (let i = 0; i < count; i++) {
        const source = SOURCES[i % SOURCES.length]!;
        const action = ACTIONS[(i >> 1) % ACTIONS.length]!;
        const word = WORDS[i % WORDS.length]!;
        const rare = i % RARE_EVERY === 0 ? ` ${RARE_WORD}` : '';
        const resource = `/home/dev/proj${i % 50}/${word}-${i}.txt`;
        const decision = i % 10 === 0 ? 'deny' : 'allow';
        const e: NewEvent = {
          ts: start + i * 1000,
          task: opts.task ?? null,
          source,
          tool: source === 'ssh' ? 'ssh-sign' : `fs.${action}`,
          action,
          resource,
          resources: [resource],
          summary: `${action} ${word} file ${i}${rare}`,
          args: JSON.stringify({ path: resource, n: i }),
          cwd: `/home/dev/proj${i % 50}`,
          process: null,
          ssh: null,
          risk: { level: i % 97 === 0 ? 'high' : 'low', reasons: [] },
          decision,
          decidedBy: i % 3 === 0 ? 'human' : 'grant',
          grant: i % 3 === 0 ? null : 'g_seed',
          scope: i % 3 === 0 ? 'once' : null,
          reason: decision === 'allow' ? 'seeded allow' : 'seeded deny',
        };
        store.appendEvent(e);
      }
    });
    insert();
  } finally {
    store.close();
  }
  return { ms: Date.now() - t0 };
}
