import type { Migration } from './index';

// How far the search index has got. It cannot be read from events_fts itself: an
// external-content FTS5 table answers `max(rowid)` from the content table (events).
// The index is rebuilt once so the mark starts true.
export const m005SearchIndexMark: Migration = {
  version: 5,
  name: 'high-water mark of the batched search index',
  up(db) {
    db.exec(`
      CREATE TABLE search_index_mark (
        one INTEGER PRIMARY KEY CHECK (one = 1),
        upto INTEGER NOT NULL
      );
      INSERT INTO events_fts(events_fts) VALUES ('rebuild');
      INSERT INTO search_index_mark (one, upto) SELECT 1, coalesce(max(id), 0) FROM events;
    `);
  },
};
