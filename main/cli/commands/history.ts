import * as fs from 'node:fs';
import type { Command } from 'commander';
import { HistoryQuery, type AuditResult, type HistoryEvent } from '../../contract/approver';
import { parseIsoTime } from '../../contract/common';
import { describeIssues } from '../../contract/rpc';
import { airlockPaths } from '../../os/paths';
import { Store, StoreFault } from '../../store';
import { EXIT, faultExit } from '../exit-codes';
import { callUi, CliError, fmtTime, parseDuration, printJson, table } from '../util';

/** Reads `db` directly, read-only (nothing is written, not even -wal/-shm); a fault is one line and its exit code. */
function fromDb<T>(db: string, direct: (s: Store) => T): T {
  let store: Store | null = null;
  try {
    store = new Store(db, { readonly: true });
    return direct(store);
  } catch (e) {
    if (e instanceof StoreFault) throw new CliError(e.message, faultExit(e.kind));
    throw e;
  } finally {
    store?.close();
  }
}

/** Asks the daemon; when it is not running, reads the database directly (read-only). */
async function viaDaemonOrDb<T>(method: string, params: object, direct: (s: Store) => T): Promise<T> {
  try {
    return await callUi<T>(method, params);
  } catch (e) {
    if (!(e instanceof CliError) || e.exitCode !== EXIT.unavailable) throw e;
    const db = airlockPaths().db;
    // sysexits EX_NOINPUT (66), as `--db` on a missing file: the input is missing, whether or
    // not the daemon runs; 69 is kept for "the daemon is needed and not running".
    if (!fs.existsSync(db)) throw new CliError(`cannot open ${db}: it does not exist; no history yet (start the daemon once with \`airlock serve\`, or name a copy with --db)`, EXIT.cannotOpen);
    return fromDb(db, direct);
  }
}

function since(v: string): number {
  if (/^\d+\s*[smhd]$/.test(v)) return Date.now() - parseDuration(v) * 1000;
  const t = parseIsoTime(v);
  if (t === null) throw new CliError(`bad time "${v}": use an ISO date or time (2026-11-24, 2026-11-24T09:30:00Z) or a duration like 2h (ago)`);
  return t;
}

export function registerHistory(program: Command): void {
  program
    .command('history')
    .description('browse history, newest first (works without the daemon too)')
    .option('--task <id>', 'only this task')
    .option('--source <source>', 'api, exec, claude-code, mcp, ssh, request.sock …')
    .option('--action <action>', 'read, write, delete, transfer, execute, sign, other')
    .option('--tool <tool>', 'exactly this tool: task.start and task.end (tasks begun and ended), Bash, ssh-sign …')
    .option('--decision <d>', 'allow, deny or reject')
    .option('--text <words>', 'full-text search in summary, resource, tool and reason')
    .option('--since <when>', 'ISO date or time (2026-11-24, 2026-11-24T09:30:00Z) or a duration ago (30m, 2h, 1d)')
    .option('--until <when>', 'ISO date or time, or a duration ago')
    .option('-n, --limit <n>', 'how many', (v) => Number(v), 50)
    .option('--cursor <c>', 'continue after a previous page')
    .option('--db <path>', 'read this database file (e.g. a copy) instead of asking the daemon; nothing is written')
    .option('--json', 'print JSON lines (one event per line)')
    .addHelpText('after', '\nExamples:\n  airlock history --decision deny --since 1d\n  airlock history --tool task.start --since 1d   # which processes began tasks\n  airlock history --text "git push" --json | jq .summary')
    .action(async (o: { task?: string; source?: string; action?: string; tool?: string; decision?: string; text?: string; since?: string; until?: string; limit: number; cursor?: string; json?: boolean; db?: string }) => {
      const q = {
        ...(o.task ? { task: o.task } : {}),
        ...(o.source ? { source: o.source } : {}),
        ...(o.action ? { action: o.action } : {}),
        ...(o.tool ? { tool: o.tool } : {}),
        ...(o.decision ? { decision: o.decision } : {}),
        ...(o.text ? { text: o.text } : {}),
        ...(o.since ? { since: since(o.since) } : {}),
        ...(o.until ? { until: since(o.until) } : {}),
        limit: o.limit,
        ...(o.cursor ? { cursor: o.cursor } : {}),
      };
      // Checked here too, not only by the daemon: with --db or the daemon down nothing else would
      // refuse `--action writes` or `--decision maybe`, and a typo would read as "no events".
      const checked = HistoryQuery.safeParse(q);
      if (!checked.success) throw new CliError(`invalid ${describeIssues(checked.error)}`);
      const direct = (s: Store) => {
        // A typo in --source or --task is named here too (the daemon does the same on ui.sock).
        const problem = s.historyFilterProblem(checked.data);
        if (problem) throw new CliError(`invalid ${problem}`);
        return s.queryHistory(checked.data);
      };
      const r = o.db ? fromDb(o.db, direct) : await viaDaemonOrDb<{ events: HistoryEvent[]; cursor: string | null }>('history.query', q, direct);
      if (o.json) {
        for (const e of r.events) process.stdout.write(JSON.stringify(e) + '\n');
        return;
      }
      if (r.events.length === 0) return void process.stdout.write('no events\n');
      process.stdout.write(
        table([
          ['ID', 'TIME', 'DECISION', 'BY', 'SOURCE', 'ACTION', 'RISK', 'SUMMARY'],
          ...r.events.map((e) => [String(e.id), fmtTime(e.ts), e.decision, e.decidedBy, e.source, e.action, e.risk.level, e.summary]),
        ]),
      );
      if (r.cursor) process.stdout.write(`more: airlock history --cursor ${r.cursor}\n`);
    });

  program
    .command('audit')
    .description('check history for tampering')
    .command('verify', { isDefault: true })
    .description('walk the hash chain; exit 1 and name the first altered or missing event (65: the file itself is damaged)')
    .option('--db <path>', 'verify this database file (e.g. a read-only copy) instead of asking the daemon; nothing is written')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean; db?: string }) => {
      const r = o.db ? fromDb(o.db, (s) => s.verifyChain()) : await viaDaemonOrDb<AuditResult>('audit.verify', {}, (s) => s.verifyChain());
      if (o.json) printJson(r);
      else if (r.ok) process.stdout.write(`ok: ${r.count} events, chain intact\n`);
      else if (r.damaged) process.stderr.write(`DAMAGED: ${r.damaged}\n`);
      else process.stderr.write(`TAMPERED: ${r.firstBad!.reason} (first bad event: ${r.firstBad!.id}; ${r.count} events verified before it; the file itself is sound: SQLite's quick_check passed)\n`);
      // Damage is not tampering: its own code (65), so scripts can tell the two apart.
      if (!r.ok) process.exitCode = r.damaged ? EXIT.damaged : EXIT.failed;
    });
}
