import type { Migration } from './index';

// Indexing each event for search inside its own commit doubled the cost of a decision.
// The FTS index is now filled in batches (Store.indexPending), always before a search.
export const m003DeferredSearchIndex: Migration = {
  version: 3,
  name: 'fill the FTS index in batches instead of a per-row trigger',
  up(db) {
    db.exec('DROP TRIGGER IF EXISTS events_fts_insert;');
  },
};
