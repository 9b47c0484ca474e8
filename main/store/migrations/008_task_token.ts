import type { Migration } from './index';

// A task's capability token (docs/task-binding.md) is kept only as its SHA-256: the token
// is 256 random bits, so a plain hash is enough, and a copy of the database cannot act as a
// task. Tasks from before this migration have none, so nothing on the shared socket can act
// as them (fail closed); their grants still work through prompts and the human side.
export const m008TaskToken: Migration = {
  version: 8,
  name: 'hash of each task capability token',
  up(db) {
    db.exec(`ALTER TABLE tasks ADD COLUMN token_hash TEXT`);
  },
};
