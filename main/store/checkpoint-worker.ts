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
//
// A checkpoint that moved the whole WAL makes the NEXT write restart the WAL from its start,
// and that writer fsyncs the new WAL header (SQLite does so under synchronous=NORMAL: an
// out-of-order write after a restart could otherwise corrupt the database). Traced (issue 15,
// strace + commit timings): with no checkpoints the first commit after a pause took ~0.13 ms;
// after a checkpoint in the pause it took 0.7-1.9 ms at p50 and up to tens of ms, all of it
// that fsync, on whichever signature came first. No lock was ever waited for (busy_timeout 0
// on the writer: no SQLITE_BUSY in 200,000 commits beside checkpoints). So after a full
// checkpoint this thread tells the main thread, which restarts the WAL itself while still
// idle (Store.restartWal), and the fsync happens in the pause instead of in front of a request.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { QUIET_MS } from './background-index';
import { sqliteNativeBinding } from './native-binding';
import { type WriteSignal, WAL_BACKFILLED, checkpointDue, takeStagedCount } from './write-signal';

const { file, intervalMs, signal } = workerData as { file: string; intervalMs: number; signal: WriteSignal };
const db = new Database(file, { nativeBinding: sqliteNativeBinding() });
db.pragma('busy_timeout = 200');
let stopping = false;

async function tick(): Promise<void> {
  const staged = checkpointDue(signal, Date.now(), QUIET_MS);
  if (staged === 0) return;
  takeStagedCount(signal, staged);
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    if (r && r.log > 0 && r.checkpointed === r.log) parentPort?.postMessage(WAL_BACKFILLED);
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
