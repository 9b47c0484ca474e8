// Whether Airlock can be reached. Electron's IPC never drops; the web socket can, and then
// every view must say "can't reach Airlock" rather than show a stale or empty list.
import { create } from 'zustand';
import type { ConnectionState } from '../bridge';

export const useConnection = create<{ state: ConnectionState; set(s: ConnectionState): void }>((set) => ({
  state: 'open',
  set: (state) => set({ state }),
}));

export const CANT_REACH = "Can't reach Airlock: this list may be out of date. Reconnecting…";
