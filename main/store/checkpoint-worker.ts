// Runs in a worker thread with its own connection: moves the WAL into the database
// (PASSIVE checkpoints), so no decision on the main thread pays for a checkpoint.
// (Indexing for search stays on the main thread in small slices: from here it competed
// for SQLite's write lock, and a commit that has to wait sleeps for milliseconds.)
//
// A checkpoint still takes a core (and fsyncs) while it runs. Traced (issue 15,
// test/bench/profile-sign.ts, this thread's profile laid over the slowest 1% of granted
// signatures): it was busy during ~10% of the slowest signatures and ~1% of all of them; on
// a 2-core machine the client, the daemon and a checkpoint cannot all run at once. So, like
// search indexing (background-index.ts), it waits for a pause in writes: a tick checkpoints
// only when no event was staged for QUIET_MS, or when about CHECKPOINT_AFTER frames have piled
// up in the WAL since the last one (a flood that never pauses still gets checkpoints, well
// before the main thread's own wal_autocheckpoint would stall a commit).
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { QUIET_MS } from './background-index';
import { sqliteNativeBinding } from './native-binding';
import { type WriteSignal, checkpointDue, takeStagedCount } from './write-signal';

const { file, intervalMs, signal } = workerData as { file: string; intervalMs: number; signal: WriteSignal };
const db = new Database(file, { nativeBinding: sqliteNativeBinding() });
db.pragma('busy_timeout = 200');
let stopping = false;

async function tick(): Promise<void> {
  const staged = checkpointDue(signal, Date.now(), QUIET_MS);
  if (staged === 0) return;
  takeStagedCount(signal, staged);
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or closing: the next tick tries again.
  }
}

let running = false;
const timer = setInterval(() => {
  if (running || stopping) return;
  running = true;
  void tick().finally(() => (running = false));
}, intervalMs);

parentPort?.on('message', (m: unknown) => {
  if (m === 'stop') {
    stopping = true;
    clearInterval(timer);
    db.close();
    process.exit(0);
  }
});
