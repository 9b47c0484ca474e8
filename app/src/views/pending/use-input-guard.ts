// The input guard of DESIGN.md: for the first half second after a prompt appears (and
// again whenever its window becomes visible or focused, or the card changes what a key
// would do — the "Always" confirmation), clicks and keys are ignored, so a keystroke
// meant for another window, or a key pressed twice, cannot approve. Each card has its
// own guard and the prompt on screen is keyed by id: when another prompt comes up, its
// guard starts afresh.
//
// What counts as the human answering THIS card (the red team of keystroke binding,
// test/e2e/redteam-keys-web.test.ts):
// - a fresh gesture: a key press or a pointer press that began after the guard ended.
//   Auto-repeat (keydown with repeat=true) is the tail of an older press, and a click or
//   a keyboard-activated button (Enter, Space) counts from the press that started it, so
//   a key held as the prompt appeared, or a button pressed on the card before, never
//   decides this one;
// - after a pause: any key or pointer press while the guard holds pushes its end back by
//   the guard time, so someone typing into what they believe is another window never
//   reaches a live card however long they type;
// - only while the page is visible: a hidden page is not seen, so nothing decides it;
// - counted from the first frame that shows the card, not from when React mounted it: a
//   busy main thread can hold the paint back while time passes (the guard starts in
//   requestAnimationFrame, which runs only for a frame about to be painted);
// - a key counts from when it was pressed (its event's timeStamp), so one pressed before
//   the card was painted and delivered later is not fresh.
import { useCallback, useEffect, useRef, useState } from 'react';

export const GUARD_MS = 500;

/** Keys that change other keys and decide nothing: holding one never holds the guard. */
const MODIFIERS = new Set(['Shift', 'Control', 'Alt', 'AltGraph', 'Meta', 'CapsLock', 'Fn']);

/** When each key now down was pressed (performance.now()); -Infinity: held before this page saw its press. */
const keyPressedAt = new Map<string, number>();
let pointerPressedAt = -Infinity;
let lastKeyUp: { code: string; pressedAt: number; at: number } | null = null;
/** When an input event happened: its timeStamp (same clock as performance.now()), never later than now. */
function pressedAt(e: Event): number {
  const now = performance.now();
  return Number.isFinite(e.timeStamp) && e.timeStamp > 0 ? Math.min(e.timeStamp, now) : now;
}
/** When the press behind the key or click being handled began. */
let gestureAt = -Infinity;

if (typeof window !== 'undefined') {
  // Capture on window, registered once before any card: runs before every card's handler.
  window.addEventListener('keydown', (e) => {
    const now = pressedAt(e);
    if (!e.repeat) keyPressedAt.set(e.code, now);
    else if (!keyPressedAt.has(e.code)) keyPressedAt.set(e.code, -Infinity);
    // Auto-repeat is the tail of an older press, never a fresh one.
    gestureAt = e.repeat ? -Infinity : now;
  }, true);
  window.addEventListener('keyup', (e) => {
    lastKeyUp = { code: e.code, pressedAt: keyPressedAt.get(e.code) ?? -Infinity, at: performance.now() };
    keyPressedAt.delete(e.code);
  }, true);
  window.addEventListener('pointerdown', (e) => {
    pointerPressedAt = pressedAt(e);
  }, true);
  window.addEventListener('click', (e) => {
    const now = performance.now();
    if (e.detail > 0) gestureAt = pointerPressedAt; // a pointer click: from its press
    else if (keyPressedAt.has('Enter') || keyPressedAt.has('NumpadEnter')) gestureAt = keyPressedAt.get('Enter') ?? keyPressedAt.get('NumpadEnter') ?? -Infinity;
    else if (lastKeyUp && now - lastKeyUp.at < 50) gestureAt = lastKeyUp.pressedAt; // Space: the click follows its keyup
    // No press behind it: an assistive technology's click (a screen reader's "activate"),
    // which is the human's own act at this moment.
    else gestureAt = now;
  }, true);
  // Focus leaving the page: keys held now are released where this page cannot see it.
  window.addEventListener('blur', () => keyPressedAt.clear());
}

export function useInputGuard(): { armed: boolean; ready: () => boolean; swallowed: number; rearm: () => void; hold: () => void } {
  // Not live before the card's first frame: the effect below starts the guard then.
  const armAt = useRef(Infinity);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const [armed, setArmed] = useState(false);
  const [swallowed, setSwallowed] = useState(0);

  /** Holds the guard until `until` at least (never shortens it). */
  const holdUntil = useCallback((until: number) => {
    armAt.current = Math.max(armAt.current, until);
    setArmed(false);
    clearTimeout(timer.current);
    // Before the first frame (Infinity) the frame callback starts the timer.
    if (Number.isFinite(armAt.current)) timer.current = setTimeout(() => setArmed(true), Math.max(0, armAt.current - performance.now()));
  }, []);

  /** Holds the guard for its full time from now (never shortens it): the card moved or changed under the pointer. */
  const hold = useCallback(() => holdUntil(performance.now() + GUARD_MS), [holdUntil]);

  const rearm = useCallback(() => {
    armAt.current = performance.now() + GUARD_MS;
    setArmed(false);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setArmed(true), GUARD_MS);
  }, []);

  useEffect(() => {
    const frame = requestAnimationFrame(() => {
      armAt.current = performance.now() + GUARD_MS;
      clearTimeout(timer.current);
      timer.current = setTimeout(() => setArmed(true), GUARD_MS);
    });
    const onShow = () => {
      if (document.visibilityState === 'visible') rearm();
    };
    // Input while the guard holds, or a key still held (auto-repeat), pushes its end back.
    const onInput = (e: Event) => {
      if (e instanceof KeyboardEvent && MODIFIERS.has(e.key)) return;
      const now = performance.now();
      if (now < armAt.current || (e instanceof KeyboardEvent && e.repeat)) holdUntil(now + GUARD_MS);
    };
    document.addEventListener('visibilitychange', onShow);
    window.addEventListener('focus', onShow);
    window.addEventListener('keydown', onInput, true);
    window.addEventListener('pointerdown', onInput, true);
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer.current);
      document.removeEventListener('visibilitychange', onShow);
      window.removeEventListener('focus', onShow);
      window.removeEventListener('keydown', onInput, true);
      window.removeEventListener('pointerdown', onInput, true);
    };
  }, [rearm, holdUntil]);

  /** Whether the key or click being handled may decide this card; swallows it (and holds the guard) when not. */
  const ready = useCallback(() => {
    const now = performance.now();
    if (document.visibilityState === 'visible' && now >= armAt.current && gestureAt >= armAt.current) return true;
    setSwallowed((n) => n + 1);
    holdUntil(now + GUARD_MS);
    return false;
  }, [holdUntil]);

  return { armed, ready, swallowed, rearm, hold };
}
