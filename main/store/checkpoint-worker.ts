// Runs in a worker thread with its own connection: moves the WAL into the database
// (PASSIVE checkpoints) so no decision on the main thread ever pays for a checkpoint.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const db = new Database(file);
db.pragma('busy_timeout = 100');
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy: the next tick tries again.
  }
}, intervalMs);
parentPort?.on('message', (m: unknown) => {
  if (m === 'stop') {
    clearInterval(timer);
    db.close();
    process.exit(0);
  }
});
