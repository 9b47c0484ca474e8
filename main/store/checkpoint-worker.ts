// Runs in a worker thread with its own connection: fills the search index in small
// chunks and moves the WAL into the database (PASSIVE checkpoints), so no decision on
// the main thread pays for either beyond a short wait for the write lock.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { indexBatch } from './search-index';

const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const CHUNK = 200;
const db = new Database(file);
db.pragma('busy_timeout = 200');
let stopping = false;

async function tick(): Promise<void> {
  try {
    // Bounded: at most 50 chunks a tick; the rest waits for the next one.
    for (let i = 0; i < 50 && !stopping && indexBatch(db, CHUNK) === CHUNK; i++) {
      await new Promise((r) => setTimeout(r, 2));
    }
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
