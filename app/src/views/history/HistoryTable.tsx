// The history table: virtualized, so only the rows on screen exist in the DOM however
// many are loaded; the next page is fetched (cursor paging) as the end comes into view.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import { DecisionBadge, RiskBadge } from '../../components/RiskBadge';
import { actionLabel, formatTime, processChain } from '../../format';
import { useLists } from '../../state/lists-store';
import { CANT_REACH, useConnection } from '../../state/connection-store';
import { useHistory } from '../../state/history-store';
import { V, vis } from '../../components/Visible';

export const ROW_HEIGHT = 34;

export function HistoryTable() {
  const events = useHistory((s) => s.events);
  const cursor = useHistory((s) => s.cursor);
  const loading = useHistory((s) => s.loading);
  const selected = useHistory((s) => s.selected);
  const select = useHistory((s) => s.select);
  const loadMore = useHistory((s) => s.loadMore);
  const tasks = useLists((s) => s.tasks);
  const taskName = (id: string | null) => (id ? (tasks.find((t) => t.id === id)?.name ?? id) : '');
  const parentRef = useRef<HTMLDivElement>(null);
  const conn = useConnection((s) => s.state);

  const virtualizer = useVirtualizer({
    count: events.length + (cursor ? 1 : 0),
    getScrollElement: () => parentRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
  });
  const items = virtualizer.getVirtualItems();
  const last = items[items.length - 1];

  useEffect(() => {
    if (last && last.index >= events.length - 20 && cursor && !loading) void loadMore();
  }, [last, events.length, cursor, loading, loadMore]);

  return (
    <div className="history-table" role="table" aria-label="History" aria-rowcount={events.length + 1} data-testid="history-table">
      <div className="row head" role="row" aria-rowindex={1}>
        <span role="columnheader">Time</span>
        <span role="columnheader">Decision</span>
        <span role="columnheader">Risk</span>
        <span role="columnheader">Action</span>
        <span role="columnheader">Summary</span>
        <span role="columnheader" className="col-task">Task</span>
        <span role="columnheader" className="col-proc">Process</span>
        <span role="columnheader">By</span>
      </div>
      {conn !== 'open' && (
        <p className="muted empty" role="status" data-testid="cant-reach">
          {CANT_REACH}
        </p>
      )}
      {events.length === 0 && !loading && conn === 'open' && (
        <p className="muted empty" data-testid="history-empty">
          No events match.
        </p>
      )}
      <div ref={parentRef} className="scroller" data-testid="history-scroller">
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {items.map((vi) => {
            const e = events[vi.index];
            const style = { height: ROW_HEIGHT, transform: `translateY(${vi.start}px)` };
            if (!e) {
              return (
                <div key="more" className="row more" style={style} role="row">
                  <span role="cell">Loading more…</span>
                </div>
              );
            }
            return (
              <div
                key={e.id}
                role="row"
                className={`row${selected?.id === e.id ? ' selected' : ''}`}
                style={style}
                data-testid="history-row"
                data-event-id={e.id}
                aria-selected={selected?.id === e.id}
                aria-rowindex={vi.index + 2}
                tabIndex={0}
                onClick={() => select(e)}
                onKeyDown={(k) => {
                  if (k.key === 'Enter') select(e);
                  else if (k.key === 'ArrowDown' || k.key === 'ArrowUp') {
                    // Arrow keys move between rows (and open the one reached when a detail is open).
                    k.preventDefault();
                    const to = events[vi.index + (k.key === 'ArrowDown' ? 1 : -1)];
                    if (!to) return;
                    virtualizer.scrollToIndex(vi.index + (k.key === 'ArrowDown' ? 1 : -1));
                    if (selected) select(to);
                    requestAnimationFrame(() => parentRef.current?.querySelector<HTMLElement>(`[data-event-id="${to.id}"]`)?.focus());
                  }
                }}
              >
                <span role="cell" className="mono small" title={new Date(e.ts).toLocaleString()}>
                  {formatTime(e.ts)}
                </span>
                <span role="cell">
                  <DecisionBadge decision={e.decision} />
                </span>
                <span role="cell">
                  <RiskBadge level={e.risk.level} />
                </span>
                <span role="cell" title={`action ${e.action}`} data-testid="history-action">{actionLabel(e)}</span>
                <span role="cell" className="ellipsis" title={vis(e.summary)}>
                  <V text={e.summary} />
                </span>
                <span role="cell" className="ellipsis small col-task" title={vis(taskName(e.task))}>
                  <V text={taskName(e.task)} />
                </span>
                <span role="cell" className="ellipsis small mono col-proc" title={e.process ? vis(processChain(e.process).map((x) => x.node.argv.join(' ') || x.name).join(' → ')) : ''}>
                  <V text={e.process ? (processChain(e.process).at(-1)?.name ?? '') : ''} />
                </span>
                <span role="cell" className="small">
                  {e.decidedBy}
                </span>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
