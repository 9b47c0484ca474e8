// Runs in a worker thread with its own connection: moves the WAL into the database
// (PASSIVE checkpoints), so no decision on the main thread pays for a checkpoint.
// (Indexing for search stays on the main thread in small slices: from here it competed
// for SQLite's write lock, and a commit that has to wait sleeps for milliseconds.)
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { sqliteNativeBinding } from './native-binding';

const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const db = new Database(file, { nativeBinding: sqliteNativeBinding() });
db.pragma('busy_timeout = 200');
let stopping = false;

async function tick(): Promise<void> {
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
