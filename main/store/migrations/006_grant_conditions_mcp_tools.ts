import type { Migration } from './index';

// Two additions for issue 14:
// - grants.when_expr: a grant's condition over the request's arguments (CEL text, as the
//   human or task.start wrote it; compiled again when grants are loaded). NULL = none.
// - mcp_tools: what `airlock mcp` proxies learned from each server's tools/list, so the
//   Claude Code hook (which sees only `mcp__server__tool`) gets the same action as the
//   proxy. Keyed by the server's label and the tool name; one row per tool.
export const m006GrantConditionsMcpTools: Migration = {
  version: 6,
  name: 'grant conditions and learned MCP tool annotations',
  up(db) {
    db.exec(`
      ALTER TABLE grants ADD COLUMN when_expr TEXT;
      CREATE TABLE mcp_tools (
        server TEXT NOT NULL,
        tool TEXT NOT NULL,
        annotations TEXT,
        description TEXT,
        learned_at INTEGER NOT NULL,
        PRIMARY KEY (server, tool)
      ) WITHOUT ROWID;
    `);
  },
};
