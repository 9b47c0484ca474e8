// The visible countdown to the default-deny timeout of a prompt. For the prompt on
// screen it is also spoken, at 30 s and 10 s left (a per-second live region would talk
// over everything else).
import { useEffect, useRef } from 'react';
import { useAnnounce } from './Announcer';
import { useNow } from './use-now';

const SPOKEN_AT = [30, 10];

export function Countdown({ createdAt, expiresAt, announce = false }: { createdAt: number; expiresAt: number; announce?: boolean }) {
  const now = useNow(250);
  const spoken = useRef(new Set<number>());
  /** The count at the previous render: a busy page can skip a second, and the mark with it. */
  const before = useRef<number | null>(null);
  const total = Math.max(1, expiresAt - createdAt);
  const left = Math.max(0, expiresAt - now);
  const secs = Math.ceil(left / 1000);
  const urgent = secs <= 10;
  useEffect(() => {
    const prev = before.current;
    before.current = secs;
    if (!announce) return;
    for (const at of SPOKEN_AT) {
      // Only when the count passes the mark (on it, or from above it to below when a busy
      // main thread held the timer back over that second), not for a prompt that was
      // already past it when it came up.
      const passed = secs === at || (prev !== null && prev > at && secs < at && secs > 0);
      if (passed && !spoken.current.has(at)) {
        spoken.current.add(at);
        useAnnounce.getState().say(`${at} seconds left to answer; then the request is denied.`);
      }
    }
  }, [secs, announce]);
  return (
    <div className={`countdown${urgent ? ' urgent' : ''}`} role="timer" aria-live="off" data-testid="countdown">
      <div className="countdown-text">
        {left > 0 ? (
          <>
            Denies automatically in <strong data-testid="countdown-seconds">{secs}</strong> s
          </>
        ) : (
          'Timed out: denied'
        )}
      </div>
      <div className="countdown-bar" aria-hidden="true">
        <div className="countdown-fill" style={{ transform: `scaleX(${left / total})` }} />
      </div>
    </div>
  );
}
