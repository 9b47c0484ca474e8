import type { Migration } from './index';

// Remote agents (`airlock remote`, ssh -R): which remotes have a socket, the remote a
// request came through (events.remote, hashed into the chain when set), and the remote a
// grant is limited to (grants.remote; NULL = local requests only). And when each stored
// SSH key was last used, so "last used" survives a restart (ssh-add keys are memory-only
// and are not recorded here).
export const m007RemotesKeyUsage: Migration = {
  version: 7,
  name: 'remotes, the remote of events and grants, SSH key last use',
  up(db) {
    db.exec(`
      CREATE TABLE remotes (
        name TEXT PRIMARY KEY,
        created_at INTEGER NOT NULL
      );
      ALTER TABLE events ADD COLUMN remote TEXT;
      ALTER TABLE grants ADD COLUMN remote TEXT;
      CREATE TABLE key_usage (
        fingerprint TEXT PRIMARY KEY,
        last_used_at INTEGER NOT NULL
      );
    `);
  },
};
