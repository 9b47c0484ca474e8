// Numbered migrations, applied in order inside one transaction each. Never edit a
// shipped migration: add the next number. Each has a test named "migration NNN …" in test/unit/store.test.ts.
import type { Database } from 'better-sqlite3';
import { m001Initial } from './001_initial';
import { m002HistorySearch } from './002_history_search';
import { m003DeferredSearchIndex } from './003_deferred_search_index';
import { m004FilterIndexes } from './004_filter_indexes';
import { m005SearchIndexMark } from './005_search_index_mark';
import { m006GrantConditionsMcpTools } from './006_grant_conditions_mcp_tools';
import { m007RemotesKeyUsage } from './007_remotes_key_usage';
import { m008TaskToken } from './008_task_token';
import { m009TaskOrigin } from './009_task_origin';
import { m010ClaudeConfigDirs } from './010_claude_config_dirs';

export interface Migration {
  version: number;
  name: string;
  up(db: Database): void;
}

export const MIGRATIONS: readonly Migration[] = [
  m001Initial,
  m002HistorySearch,
  m003DeferredSearchIndex,
  m004FilterIndexes,
  m005SearchIndexMark,
  m006GrantConditionsMcpTools,
  m007RemotesKeyUsage,
  m008TaskToken,
  m009TaskOrigin,
  m010ClaudeConfigDirs,
];

export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Brings the database to `target` (default: latest). Returns the versions applied. */
export function migrate(db: Database, target = MIGRATIONS.length): number[] {
  const applied: number[] = [];
  const current = schemaVersion(db);
  if (current > MIGRATIONS.length) {
    throw new Error(
      `database schema is version ${current}, newer than this Airlock (${MIGRATIONS.length}): upgrade Airlock or point AIRLOCK_HOME elsewhere`,
    );
  }
  for (const m of MIGRATIONS) {
    if (m.version <= current || m.version > target) continue;
    db.transaction(() => {
      m.up(db);
      db.pragma(`user_version = ${m.version}`);
    })();
    applied.push(m.version);
  }
  return applied;
}
