import type { Migration } from './index';

// Full-text search over history (FTS5, external content: the text lives once, in events).
export const m002HistorySearch: Migration = {
  version: 2,
  name: 'FTS5 index over event summary, resource, tool and reason',
  up(db) {
    db.exec(`
      CREATE VIRTUAL TABLE events_fts USING fts5(
        summary, resource, tool, reason,
        content = 'events', content_rowid = 'id', tokenize = 'unicode61'
      );
      INSERT INTO events_fts(rowid, summary, resource, tool, reason)
        SELECT id, summary, coalesce(resource, ''), tool, reason FROM events;
      CREATE TRIGGER events_fts_insert AFTER INSERT ON events BEGIN
        INSERT INTO events_fts(rowid, summary, resource, tool, reason)
          VALUES (new.id, new.summary, coalesce(new.resource, ''), new.tool, new.reason);
      END;
    `);
  },
};
