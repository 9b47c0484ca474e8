// The input guard of DESIGN.md: for the first half second after a prompt appears (and
// again whenever its window becomes visible or focused, or the card changes what a key
// would do — the "Always" confirmation), clicks and keys are ignored, so a keystroke
// meant for another window, or a key pressed twice, cannot approve. Each card has its
// own guard and the prompt on screen is keyed by id: when another prompt comes up, its
// guard starts afresh.
import { useCallback, useEffect, useRef, useState } from 'react';

export const GUARD_MS = 500;

export function useInputGuard(): { armed: boolean; ready: () => boolean; swallowed: number; rearm: () => void } {
  const armAt = useRef(performance.now() + GUARD_MS);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const [armed, setArmed] = useState(false);
  const [swallowed, setSwallowed] = useState(0);

  const rearm = useCallback(() => {
    armAt.current = performance.now() + GUARD_MS;
    setArmed(false);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setArmed(true), GUARD_MS);
  }, []);

  useEffect(() => {
    timer.current = setTimeout(() => setArmed(true), Math.max(0, armAt.current - performance.now()));
    const onShow = () => {
      if (document.visibilityState === 'visible') rearm();
    };
    document.addEventListener('visibilitychange', onShow);
    window.addEventListener('focus', onShow);
    return () => {
      clearTimeout(timer.current);
      document.removeEventListener('visibilitychange', onShow);
      window.removeEventListener('focus', onShow);
    };
  }, [rearm]);

  const ready = useCallback(() => {
    if (performance.now() >= armAt.current) return true;
    setSwallowed((n) => n + 1);
    return false;
  }, []);

  return { armed, ready, swallowed, rearm };
}
