// The history table: virtualized, so only the rows on screen exist in the DOM however
// many are loaded; the next page is fetched (cursor paging) as the end comes into view.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import { DecisionBadge, RiskBadge } from '../../components/RiskBadge';
import { formatTime } from '../../format';
import { useHistory } from '../../state/history-store';

export const ROW_HEIGHT = 34;

export function HistoryTable() {
  const events = useHistory((s) => s.events);
  const cursor = useHistory((s) => s.cursor);
  const loading = useHistory((s) => s.loading);
  const selected = useHistory((s) => s.selected);
  const select = useHistory((s) => s.select);
  const loadMore = useHistory((s) => s.loadMore);
  const parentRef = useRef<HTMLDivElement>(null);

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
    <div className="history-table" role="table" aria-rowcount={events.length} data-testid="history-table">
      <div className="row head" role="row">
        <span role="columnheader">Time</span>
        <span role="columnheader">Decision</span>
        <span role="columnheader">Risk</span>
        <span role="columnheader">Source</span>
        <span role="columnheader">Action</span>
        <span role="columnheader">Summary</span>
        <span role="columnheader">By</span>
      </div>
      {events.length === 0 && !loading && (
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
                <div key="more" className="row more" style={style}>
                  Loading more…
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
                tabIndex={0}
                onClick={() => select(e)}
                onKeyDown={(k) => k.key === 'Enter' && select(e)}
              >
                <span className="mono small">{formatTime(e.ts)}</span>
                <span>
                  <DecisionBadge decision={e.decision} />
                </span>
                <span>
                  <RiskBadge level={e.risk.level} />
                </span>
                <span>{e.source}</span>
                <span>{e.action}</span>
                <span className="ellipsis" title={e.summary}>
                  {e.summary}
                </span>
                <span className="small">{e.decidedBy}</span>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
