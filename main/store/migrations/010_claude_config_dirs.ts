import type { Migration } from './index';

// The Claude Code settings directories (CLAUDE_CONFIG_DIR) the daemon has seen, so they stay
// guarded after a restart (core/claude-dir-memory.ts): without this, a directory that moved
// Claude Code's settings was known again only from the next request that carried it. Rows are
// only ever added (at most MAX_REMEMBERED_DIRS, enforced by the insert); none is removed.
export const m010ClaudeConfigDirs: Migration = {
  version: 10,
  name: 'the CLAUDE_CONFIG_DIR directories the daemon has seen',
  up(db) {
    db.exec(`
      CREATE TABLE claude_config_dirs (
        dir TEXT PRIMARY KEY,
        first_seen INTEGER NOT NULL
      );
    `);
  },
};
