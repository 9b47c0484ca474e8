// Which view is open and the short messages shown to the user (errors, "copied", …).
import { create } from 'zustand';
import type { HistoryEvent } from '../../../preload/types';

export const VIEWS = ['pending', 'history', 'grants', 'tasks', 'keys', 'secrets', 'settings'] as const;
export type View = (typeof VIEWS)[number];

/** An action offered on a toast, e.g. Undo for a grant just made. */
export type ToastAction = { label: string; run(): void | Promise<void> };
export type Toast = { id: number; kind: 'info' | 'error'; text: string; action?: ToastAction };

type UiState = {
  view: View;
  toasts: Toast[];
  /** An event to open in History's detail pane (from a task's timeline). */
  focusEvent: HistoryEvent | null;
  show(view: View): void;
  toast(text: string, kind?: Toast['kind'], action?: ToastAction): void;
  dismiss(id: number): void;
  openEvent(e: HistoryEvent): void;
};

let nextToast = 1;

export const useUi = create<UiState>((set, get) => ({
  view: 'pending',
  toasts: [],
  focusEvent: null,
  show: (view) => set({ view }),
  toast: (text, kind = 'info', action) => {
    const id = nextToast++;
    set({ toasts: [...get().toasts, { id, kind, text, ...(action ? { action } : {}) }].slice(-4) });
    // A toast with an action (Undo) stays long enough to use it.
    setTimeout(() => get().dismiss(id), kind === 'error' || action ? 10_000 : 3000);
  },
  dismiss: (id) => set({ toasts: get().toasts.filter((t) => t.id !== id) }),
  openEvent: (e) => set({ view: 'history', focusEvent: e }),
}));

/** Runs an async call and turns a failure into an error toast (returns undefined then). */
export async function attempt<T>(what: string, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    useUi.getState().toast(`${what}: ${(e as Error).message}`, 'error');
    return undefined;
  }
}
