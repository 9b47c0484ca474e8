// Grants, tasks, keys and settings: small lists reloaded whole when the core says they
// changed (grants.changed, tasks.changed, keys.changed) — simpler than patching and cheap.
import { create } from 'zustand';
import type { Grant, Key, Settings, Task } from '../../../preload/types';
import { airlock } from '../bridge';

type ListsState = {
  grants: Grant[];
  showInactiveGrants: boolean;
  tasks: Task[];
  keys: Key[];
  keysError: string | null;
  settings: Settings | null;
  loadGrants(): Promise<void>;
  setShowInactiveGrants(v: boolean): void;
  loadTasks(): Promise<void>;
  loadKeys(): Promise<void>;
  loadSettings(): Promise<void>;
};

export const useLists = create<ListsState>((set, get) => ({
  grants: [],
  showInactiveGrants: false,
  tasks: [],
  keys: [],
  keysError: null,
  settings: null,
  async loadGrants() {
    const { grants } = await airlock()['grants.list']({ includeInactive: get().showInactiveGrants });
    set({ grants: [...grants].reverse() });
  },
  setShowInactiveGrants(v) {
    set({ showInactiveGrants: v });
    void get().loadGrants();
  },
  async loadTasks() {
    const { tasks } = await airlock()['tasks.list']({ includeEnded: true });
    set({ tasks });
  },
  async loadKeys() {
    try {
      const { keys } = await airlock()['keys.list']({});
      set({ keys, keysError: null });
    } catch (e) {
      // The SSH agent may be absent in this process (-32010): say so instead of failing.
      set({ keys: [], keysError: (e as Error).message });
    }
  },
  async loadSettings() {
    const { settings } = await airlock()['settings.get']({});
    set({ settings });
  },
}));
