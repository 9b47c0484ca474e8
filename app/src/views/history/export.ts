// Export of the current history filter as JSONL or CSV, paged through the same
// `history.query` the table uses, in the browser (the core needs no export method).
import type { HistoryEvent } from '../../../../preload/types';
import { airlock } from '../../bridge';
import { toQuery, type HistoryFilter } from '../../state/history-store';

/** Enough for any audit the UI is for; the CLI (`airlock history`) exports without a cap. */
export const EXPORT_CAP = 100_000;

export async function fetchAll(filter: HistoryFilter, onProgress?: (n: number) => void): Promise<HistoryEvent[]> {
  const out: HistoryEvent[] = [];
  let cursor: string | null = null;
  do {
    const page: { events: HistoryEvent[]; cursor: string | null } = await airlock()['history.query']({ ...toQuery(filter), limit: 1000, cursor });
    out.push(...page.events);
    cursor = page.cursor;
    onProgress?.(out.length);
  } while (cursor && out.length < EXPORT_CAP);
  return out;
}

export function toJsonl(events: HistoryEvent[]): string {
  return events.map((e) => JSON.stringify(e)).join('\n') + (events.length ? '\n' : '');
}

const CSV_COLUMNS = ['id', 'ts', 'time', 'task', 'source', 'tool', 'action', 'resource', 'summary', 'risk', 'decision', 'decidedBy', 'grant', 'scope', 'reason', 'pid', 'exe', 'args', 'hash'] as const;

function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  // Quote everything that needs it; a leading =,+,-,@ is prefixed so a spreadsheet never runs it.
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return /[",\n\r]/.test(safe) || safe !== s ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function toCsv(events: HistoryEvent[]): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const e of events) {
    lines.push(
      [
        e.id, e.ts, new Date(e.ts).toISOString(), e.task, e.source, e.tool, e.action, e.resource, e.summary, e.risk.level,
        e.decision, e.decidedBy, e.grant, e.scope, e.reason, e.process?.pid, e.process?.exe, e.args, e.hash,
      ]
        .map(csvCell)
        .join(','),
    );
  }
  return lines.join('\r\n') + '\r\n';
}

export function download(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
