// Pending prompts, kept in step with the core by `pending.added` / `pending.resolved`.
// One of them is "on screen" (`currentId`): the human moves through the queue on purpose,
// and the selection changes only when the human moves it or the prompt on screen ends —
// never because another prompt arrived (issue 11: a keystroke must not answer a prompt
// the human never saw).
import { create } from 'zustand';
import type { DecideParams, Grant, Prompt } from '../../../preload/types';
import { airlock } from '../bridge';
import { useAnnounce } from '../components/Announcer';

/** Says a waiting prompt out loud (assertive), whichever way it reached the page. */
function announce(p: Prompt): void {
  useAnnounce.getState().say(`New request waiting for you: ${p.risk.level} risk, ${p.action}: ${p.summary || p.tool}`, true);
}

type PendingState = {
  prompts: Prompt[];
  loaded: boolean;
  /** The prompt on screen: every key and button acts on this id and no other. */
  currentId: string | null;
  /** Airlock cannot be reached: the prompts shown are expired (the daemon denied or lost them). */
  offline: boolean;
  load(): Promise<void>;
  added(p: Prompt): void;
  /** A waiting prompt changed in place (same id, e.g. how many requests it answers). */
  updated(p: Prompt): void;
  resolved(id: string): void;
  select(id: string): void;
  /** Moves the selection by `step` in the queue (bounded, no wrap). */
  move(step: number): void;
  lost(): void;
  /** The grant made (if any) and, when it does not cover this request, why (the request was answered once). */
  decide(p: DecideParams): Promise<{ grant?: Grant; notCovered?: string }>;
};

export const usePending = create<PendingState>((set, get) => ({
  prompts: [],
  loaded: false,
  currentId: null,
  offline: false,
  async load() {
    const { prompts } = await airlock()['pending.list']({});
    const sorted = sortPrompts(prompts);
    const keep = sorted.some((p) => p.id === get().currentId);
    // A prompt that arrived while the page was loading (before its subscription was live)
    // reaches it only through this list: it is announced here, or a screen reader user
    // would never hear of it.
    const known = new Set(get().prompts.map((p) => p.id));
    const unseen = sorted.filter((p) => !known.has(p.id));
    set({ prompts: sorted, loaded: true, offline: false, currentId: keep ? get().currentId : (sorted[0]?.id ?? null) });
    if (unseen[0]) announce(unseen[0]);
  },
  added(p) {
    if (get().prompts.some((x) => x.id === p.id)) return;
    // A new prompt joins the queue; the one on screen stays on screen.
    set({ prompts: sortPrompts([...get().prompts, p]), currentId: get().currentId ?? p.id });
    announce(p);
  },
  updated(p) {
    const { prompts } = get();
    if (!prompts.some((x) => x.id === p.id)) return;
    set({ prompts: prompts.map((x) => (x.id === p.id ? p : x)) });
  },
  resolved(id) {
    const { prompts, currentId } = get();
    const i = prompts.findIndex((p) => p.id === id);
    if (i < 0) return;
    const rest = prompts.filter((p) => p.id !== id);
    // The prompt on screen ended: the next in the queue comes up (its card re-arms the
    // input guard, so a key meant for the old one cannot answer it).
    const next = id === currentId ? (rest[Math.min(i, rest.length - 1)]?.id ?? null) : currentId;
    set({ prompts: rest, currentId: next });
  },
  select(id) {
    if (get().prompts.some((p) => p.id === id)) set({ currentId: id });
  },
  move(step) {
    const { prompts, currentId } = get();
    const i = Math.max(0, prompts.findIndex((p) => p.id === currentId));
    const j = Math.max(0, Math.min(prompts.length - 1, i + step));
    if (prompts[j]) set({ currentId: prompts[j].id });
  },
  lost() {
    if (get().loaded) set({ offline: true });
  },
  async decide(params) {
    const r = await airlock()['pending.decide'](params);
    // The notification removes it too; doing it now keeps the UI from showing a stale card.
    get().resolved(params.id);
    return r;
  },
}));

/** The prompt on screen, or null when nothing waits. */
export function currentPrompt(s: Pick<PendingState, 'prompts' | 'currentId'>): Prompt | null {
  return s.prompts.find((p) => p.id === s.currentId) ?? s.prompts[0] ?? null;
}

/** Oldest first: the one closest to its timeout is the one to answer first. */
function sortPrompts(ps: Prompt[]): Prompt[] {
  return [...ps].sort((a, b) => a.expiresAt - b.expiresAt || a.createdAt - b.createdAt);
}
