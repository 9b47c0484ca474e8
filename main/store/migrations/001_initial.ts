import type { Migration } from './index';

export const m001Initial: Migration = {
  version: 1,
  name: 'tasks, grants, hash-chained events, settings',
  up(db) {
    db.exec(`
      CREATE TABLE tasks (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        cwd TEXT,
        created_at INTEGER NOT NULL,
        ended_at INTEGER,
        ssh_auth_sock TEXT
      );
      CREATE TABLE grants (
        id TEXT PRIMARY KEY,
        task TEXT REFERENCES tasks(id),
        source TEXT NOT NULL,
        tool TEXT NOT NULL,
        action TEXT NOT NULL,
        resource TEXT NOT NULL,
        key TEXT,
        effect TEXT NOT NULL CHECK (effect IN ('allow', 'deny')),
        expires_at INTEGER,
        uses_left INTEGER,
        forwarded INTEGER NOT NULL DEFAULT 0,
        note TEXT,
        created_at INTEGER NOT NULL,
        created_by TEXT NOT NULL,
        revoked_at INTEGER,
        last_used_at INTEGER
      );
      CREATE INDEX grants_by_task ON grants(task);
      -- One row per request. hash = sha256(prev_hash || canonical row); see main/store/chain.ts.
      CREATE TABLE events (
        id INTEGER PRIMARY KEY,
        ts INTEGER NOT NULL,
        task TEXT,
        source TEXT NOT NULL,
        tool TEXT NOT NULL,
        action TEXT NOT NULL,
        resource TEXT,
        resources TEXT NOT NULL,
        summary TEXT NOT NULL,
        args TEXT,
        cwd TEXT,
        process TEXT,
        ssh TEXT,
        risk_level TEXT NOT NULL,
        risk_reasons TEXT NOT NULL,
        decision TEXT NOT NULL,
        decided_by TEXT NOT NULL,
        grant_id TEXT,
        scope TEXT,
        reason TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL
      );
      CREATE INDEX events_by_task ON events(task, id);
      CREATE INDEX events_by_ts ON events(ts);
      CREATE INDEX events_by_source ON events(source, id);
      CREATE INDEX events_by_action ON events(action, id);
      CREATE INDEX events_by_decision ON events(decision, id);
      -- The newest id/hash, written with every event, so deleting the tail is detected.
      CREATE TABLE chain_head (
        one INTEGER PRIMARY KEY CHECK (one = 1),
        id INTEGER NOT NULL,
        hash TEXT NOT NULL
      );
      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
    `);
  },
};
