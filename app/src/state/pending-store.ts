// Pending prompts, kept in step with the core by `pending.added` / `pending.resolved`.
import { create } from 'zustand';
import type { DecideParams, Grant, Prompt } from '../../../preload/types';
import { airlock } from '../bridge';

type PendingState = {
  prompts: Prompt[];
  loaded: boolean;
  load(): Promise<void>;
  added(p: Prompt): void;
  resolved(id: string): void;
  decide(p: DecideParams): Promise<Grant | undefined>;
};

export const usePending = create<PendingState>((set, get) => ({
  prompts: [],
  loaded: false,
  async load() {
    const { prompts } = await airlock()['pending.list']({});
    set({ prompts: sortPrompts(prompts), loaded: true });
  },
  added(p) {
    if (get().prompts.some((x) => x.id === p.id)) return;
    set({ prompts: sortPrompts([...get().prompts, p]) });
  },
  resolved(id) {
    set({ prompts: get().prompts.filter((p) => p.id !== id) });
  },
  async decide(params) {
    const { grant } = await airlock()['pending.decide'](params);
    // The notification removes it too; doing it now keeps the UI from showing a stale card.
    get().resolved(params.id);
    return grant;
  },
}));

/** Oldest first: the one closest to its timeout is the one to answer first. */
function sortPrompts(ps: Prompt[]): Prompt[] {
  return [...ps].sort((a, b) => a.expiresAt - b.expiresAt || a.createdAt - b.createdAt);
}
