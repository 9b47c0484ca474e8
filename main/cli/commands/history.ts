import * as fs from 'node:fs';
import type { Command } from 'commander';
import { AuditAnchor, HistoryQuery, type AuditHead, type AuditResult, type HistoryEvent } from '../../contract/approver';
import { parseIsoTime } from '../../contract/common';
import { describeIssues } from '../../contract/rpc';
import { airlockPaths } from '../../os/paths';
import { Store, StoreFault } from '../../store';
import { EXIT, faultExit } from '../exit-codes';
import { callUi, CliError, fmtTime, parseDuration, parseWhole, printJson, table } from '../util';

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

/** `--anchor ID:HASH` (repeatable), checked here so a typo is a usage error, not a failed verification. */
function collectAnchor(v: string, prev: AuditAnchor[]): AuditAnchor[] {
  const m = /^\s*(\d{1,16}):([0-9a-fA-F]{64})\s*$/.exec(v);
  const parsed = m ? AuditAnchor.safeParse({ id: Number(m[1]), hash: m[2]!.toLowerCase() }) : null;
  if (!parsed?.success) throw new CliError(`--anchor ${JSON.stringify(v.slice(0, 100))}: not an anchor; give ID:HASH exactly as \`airlock audit head\` printed it (an event id, a colon, 64 hex digits)`, EXIT.usage);
  return [...prev, parsed.data];
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
    .option('--remote <name>', 'only what came from this remote (airlock remote): its requests, rejected lines and forwarded-agent signatures')
    .option('--text <words>', 'full-text search in summary, resource, tool and reason')
    .option('--since <when>', 'ISO date or time (2026-11-24, 2026-11-24T09:30:00Z) or a duration ago (30m, 2h, 1d)')
    .option('--until <when>', 'ISO date or time, or a duration ago')
    .option('-n, --limit <n>', 'how many (1…1000)', (v) => parseWhole('--limit', v, 1, 1000), 50)
    .option('--cursor <c>', 'continue after a previous page')
    .option('--db <path>', 'read this database file (e.g. a copy) instead of asking the daemon; nothing is written')
    .option('--json', 'print JSON lines (one event per line)')
    .addHelpText('after', '\nExamples:\n  airlock history --decision deny --since 1d\n  airlock history --tool task.start --since 1d   # which processes began tasks\n  airlock history --text "git push" --json | jq .summary')
    .action(async (o: { task?: string; source?: string; action?: string; tool?: string; decision?: string; remote?: string; text?: string; since?: string; until?: string; limit: number; cursor?: string; json?: boolean; db?: string }) => {
      const q = {
        ...(o.task ? { task: o.task } : {}),
        ...(o.source ? { source: o.source } : {}),
        ...(o.action ? { action: o.action } : {}),
        ...(o.tool ? { tool: o.tool } : {}),
        ...(o.decision ? { decision: o.decision } : {}),
        ...(o.remote !== undefined ? { remote: o.remote } : {}),
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
          // FROM: a remote's request reads like this machine's otherwise (`airlock exec -- rm …` on a server).
          // It goes just before SUMMARY: the columns scripts may already cut (ID … RISK) keep their places.
          ['ID', 'TIME', 'DECISION', 'BY', 'SOURCE', 'ACTION', 'RISK', 'FROM', 'SUMMARY'],
          ...r.events.map((e) => [String(e.id), fmtTime(e.ts), e.decision, e.decidedBy, e.source, e.action, e.risk.level, e.remote ? `remote ${e.remote.name}` : 'this machine', e.summary]),
        ]),
      );
      if (r.cursor) process.stdout.write(`more: airlock history --cursor ${r.cursor}\n`);
    });

  const audit = program.command('audit').description('check history for tampering; anchor it off this machine');
  audit
    .command('verify', { isDefault: true })
    .description('walk the hash chain; exit 1 and name the first altered or missing event (65: the file itself is damaged)')
    .option('--db <path>', 'verify this database file (e.g. a read-only copy) instead of asking the daemon; nothing is written')
    .option('--anchor <ID:HASH>', 'an anchor from `airlock audit head` kept elsewhere: that event must still be in history, unchanged (repeatable)', collectAnchor, [])
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean; db?: string; anchor: AuditAnchor[] }) => {
      const anchors = o.anchor.length ? o.anchor : undefined;
      const direct = (s: Store) => s.verifyChain(anchors);
      const r = o.db ? fromDb(o.db, direct) : await viaDaemonOrDb<AuditResult>('audit.verify', anchors ? { anchors } : {}, direct);
      if (o.json) printJson(r);
      else if (r.ok) process.stdout.write(`ok: ${r.count} events, chain intact${r.anchors ? `; ${r.anchors.length === 1 ? 'the anchor matches' : `all ${r.anchors.length} anchors match`}` : ''}\n`);
      else if (r.damaged) process.stderr.write(`DAMAGED: ${r.damaged}\n`);
      else if (r.anchors?.some((a) => !a.ok && a.reason === r.firstBad?.reason)) {
        // The chain links up; an anchor does not: it was rebuilt after an edit.
        process.stderr.write(`TAMPERED: ${r.firstBad!.reason} (the chain itself links up over ${r.count} events: it was recomputed after the edit)\n`);
      } else process.stderr.write(`TAMPERED: ${r.firstBad!.reason} (first bad event: ${r.firstBad!.id}; ${r.count} events verified before it; the file itself is sound: SQLite's quick_check passed)\n`);
      // Damage is not tampering: its own code (65), so scripts can tell the two apart.
      if (!r.ok) process.exitCode = r.damaged ? EXIT.damaged : EXIT.failed;
    });
  audit
    .command('head')
    .description('print the chain head as ID:HASH: keep it off this machine, and `audit verify --anchor ID:HASH` later proves history up to it was not rewritten')
    .option('--db <path>', 'read this database file instead of asking the daemon; nothing is written')
    .option('--json', 'print JSON ({id, hash, ts, anchor})')
    .action(async (o: { json?: boolean; db?: string }) => {
      const direct = (s: Store) => s.chainHead();
      const h = o.db ? fromDb(o.db, direct) : await viaDaemonOrDb<AuditHead>('audit.head', {}, direct);
      if (o.json) return printJson(h);
      // stdout is the anchor alone (for scripts: `airlock audit head | ssh backup 'cat >> anchors'`).
      process.stdout.write(`${h.anchor}\n`);
      if (process.stderr.isTTY) {
        process.stderr.write(
          h.id === 0
            ? 'history is empty: nothing to anchor yet\n'
            : `event ${h.id}, ${fmtTime(h.ts)}. Keep it where an agent on this machine cannot rewrite it; later: airlock audit verify --anchor ${h.anchor}\n`,
        );
      }
    });
}
