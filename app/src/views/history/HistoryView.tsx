import { useEffect, useState } from 'react';
import type { AuditHead, AuditResult } from '../../../../preload/types';
import { airlock } from '../../bridge';
import { useHistory } from '../../state/history-store';
import { attempt, useUi } from '../../state/ui-store';
import { EventDetail } from './EventDetail';
import { download, fetchAll, toCsv, toJsonl } from './export';
import { HistoryFilters } from './HistoryFilters';
import { HistoryTable } from './HistoryTable';

export function HistoryView() {
  const reload = useHistory((s) => s.reload);
  const selected = useHistory((s) => s.selected);
  const select = useHistory((s) => s.select);
  const filter = useHistory((s) => s.filter);
  const count = useHistory((s) => s.events.length);
  const more = useHistory((s) => s.cursor !== null);
  const lastQueryMs = useHistory((s) => s.lastQueryMs);
  const focusEvent = useUi((s) => s.focusEvent);
  const [audit, setAudit] = useState<AuditResult | 'running' | null>(null);
  const [head, setHead] = useState<AuditHead | null>(null);
  const [exporting, setExporting] = useState<string | null>(null);

  useEffect(() => {
    void attempt('Could not load history', reload);
  }, [reload]);

  useEffect(() => {
    if (focusEvent === null) return;
    useUi.setState({ focusEvent: null });
    select(focusEvent);
  }, [focusEvent, select]);

  async function exportAs(kind: 'jsonl' | 'csv') {
    setExporting('0');
    await attempt('Export failed', async () => {
      const events = await fetchAll(filter, (n) => setExporting(String(n)));
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      if (kind === 'jsonl') download(`airlock-history-${stamp}.jsonl`, toJsonl(events), 'application/x-ndjson');
      else download(`airlock-history-${stamp}.csv`, toCsv(events), 'text/csv');
    });
    setExporting(null);
  }

  async function verify() {
    setAudit('running');
    setHead(null);
    const r = await attempt('Chain verification failed', () => airlock()['audit.verify']({}));
    setAudit(r ?? null);
    // An intact chain is worth anchoring: the head, to keep where no agent here can rewrite it.
    if (r?.ok) setHead((await attempt('Reading the chain head failed', () => airlock()['audit.head']({}))) ?? null);
  }

  return (
    <div className="history-view">
      <div className="toolbar">
        <HistoryFilters />
        <div className="actions">
          <span className="muted small" data-testid="history-count">
            {count}
            {more ? '+' : ''} events{lastQueryMs !== null ? ` · ${lastQueryMs} ms` : ''}
          </span>
          <button className="btn small" disabled={exporting !== null} onClick={() => void exportAs('jsonl')} data-testid="export-jsonl">
            Export JSONL
          </button>
          <button className="btn small" disabled={exporting !== null} onClick={() => void exportAs('csv')} data-testid="export-csv">
            Export CSV
          </button>
          <button className="btn small" disabled={audit === 'running'} onClick={() => void verify()} data-testid="verify-chain">
            Verify chain
          </button>
        </div>
      </div>
      {exporting !== null && <p className="small muted">Exporting… {exporting} events</p>}
      {audit && audit !== 'running' && (
        <p className={`audit ${audit.ok ? 'ok' : 'bad'}`} data-testid="audit-result">
          {audit.ok
            ? `Chain intact: ${audit.count} events verified.`
            : audit.damaged
              ? `Database damaged (not tampering): ${audit.damaged}`
              : `Chain broken at event ${audit.firstBad?.id}: ${audit.firstBad?.reason} (${audit.count} verified before it).`}
        </p>
      )}
      {head && head.id > 0 && audit && audit !== 'running' && audit.ok && (
        <p className="small muted" data-testid="audit-anchor">
          Anchor (keep it off this machine; <code>airlock audit verify --anchor …</code> proves history up to it was not rewritten):{' '}
          <code className="mono" data-testid="audit-anchor-value">{head.anchor}</code>
        </p>
      )}
      <div className={`history-body${selected ? ' with-detail' : ''}`}>
        <HistoryTable />
        {selected && <EventDetail event={selected} onClose={() => select(null)} />}
      </div>
    </div>
  );
}
