// The input guard of DESIGN.md: for the first half second after a prompt appears (and
// again whenever its window becomes visible or focused), clicks and keys are ignored, so
// a keystroke meant for another window cannot approve.
import { useCallback, useEffect, useRef, useState } from 'react';

export const GUARD_MS = 500;

export function useInputGuard(): { armed: boolean; ready: () => boolean; swallowed: number } {
  const armAt = useRef(performance.now() + GUARD_MS);
  const [armed, setArmed] = useState(false);
  const [swallowed, setSwallowed] = useState(0);

  useEffect(() => {
    let timer = setTimeout(() => setArmed(true), GUARD_MS);
    const rearm = () => {
      if (document.visibilityState !== 'visible') return;
      armAt.current = performance.now() + GUARD_MS;
      setArmed(false);
      clearTimeout(timer);
      timer = setTimeout(() => setArmed(true), GUARD_MS);
    };
    document.addEventListener('visibilitychange', rearm);
    window.addEventListener('focus', rearm);
    return () => {
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', rearm);
      window.removeEventListener('focus', rearm);
    };
  }, []);

  const ready = useCallback(() => {
    if (performance.now() >= armAt.current) return true;
    setSwallowed((n) => n + 1);
    return false;
  }, []);

  return { armed, ready, swallowed };
}
