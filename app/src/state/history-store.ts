// History: the current filter, the pages loaded so far (cursor paging), the selection.
import { create } from 'zustand';
import type { HistoryEvent, HistoryQuery } from '../../../preload/types';
import { airlock } from '../bridge';

export type HistoryFilter = {
  task?: string;
  source?: string;
  /** The exact tool (`task.start`, `Bash`, `ssh-sign`, …), as `airlock history --tool`. */
  tool?: string;
  action?: HistoryQuery['action'];
  decision?: 'allow' | 'deny' | 'reject';
  text?: string;
  since?: number;
  until?: number;
};

export const PAGE_SIZE = 200;

type HistoryState = {
  filter: HistoryFilter;
  events: HistoryEvent[];
  cursor: string | null;
  loading: boolean;
  /** Round trip of the last first-page query, as the renderer saw it (ms). */
  lastQueryMs: number | null;
  selected: HistoryEvent | null;
  /** Bumped by every new query so late answers of an old one are dropped. */
  generation: number;
  setFilter(f: Partial<HistoryFilter>): void;
  reload(): Promise<void>;
  loadMore(): Promise<void>;
  select(e: HistoryEvent | null): void;
  recorded(e: HistoryEvent): void;
};

export function toQuery(f: HistoryFilter): HistoryQuery {
  const q: HistoryQuery = {};
  if (f.task) q.task = f.task;
  if (f.source) q.source = f.source;
  if (f.tool) q.tool = f.tool;
  if (f.action) q.action = f.action;
  if (f.decision) q.decision = f.decision;
  if (f.text && f.text.trim()) q.text = f.text.trim();
  if (f.since !== undefined) q.since = f.since;
  if (f.until !== undefined) q.until = f.until;
  return q;
}

/** Whether a live event belongs in the list under this filter (text search: ask the server). */
function matches(f: HistoryFilter, e: HistoryEvent): boolean {
  if (f.text && f.text.trim()) return false;
  if (f.task && e.task !== f.task) return false;
  if (f.source && e.source !== f.source) return false;
  if (f.tool && e.tool !== f.tool) return false;
  if (f.action && e.action !== f.action) return false;
  if (f.decision && e.decision !== f.decision) return false;
  if (f.since !== undefined && e.ts < f.since) return false;
  if (f.until !== undefined && e.ts > f.until) return false;
  return true;
}

export const useHistory = create<HistoryState>((set, get) => ({
  filter: {},
  events: [],
  cursor: null,
  loading: false,
  lastQueryMs: null,
  selected: null,
  generation: 0,
  setFilter(f) {
    set({ filter: { ...get().filter, ...f } });
    void get().reload();
  },
  async reload() {
    const generation = get().generation + 1;
    set({ generation, loading: true });
    const t0 = performance.now();
    try {
      const page = await airlock()['history.query']({ ...toQuery(get().filter), limit: PAGE_SIZE });
      if (get().generation !== generation) return;
      set({ events: page.events, cursor: page.cursor, lastQueryMs: Math.round(performance.now() - t0) });
    } finally {
      if (get().generation === generation) set({ loading: false });
    }
  },
  async loadMore() {
    const { cursor, loading, generation } = get();
    if (!cursor || loading) return;
    set({ loading: true });
    try {
      const page = await airlock()['history.query']({ ...toQuery(get().filter), limit: PAGE_SIZE, cursor });
      if (get().generation !== generation) return;
      set({ events: [...get().events, ...page.events], cursor: page.cursor });
    } finally {
      if (get().generation === generation) set({ loading: false });
    }
  },
  select: (e) => set({ selected: e }),
  recorded(e) {
    const s = get();
    if (!matches(s.filter, e) || s.events.some((x) => x.id === e.id)) return;
    set({ events: [e, ...s.events] });
  },
}));
