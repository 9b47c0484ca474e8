// The visible countdown to the default-deny timeout of a prompt.
import { useEffect, useState } from 'react';

export function Countdown({ createdAt, expiresAt }: { createdAt: number; expiresAt: number }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(t);
  }, []);
  const total = Math.max(1, expiresAt - createdAt);
  const left = Math.max(0, expiresAt - now);
  const secs = Math.ceil(left / 1000);
  const urgent = secs <= 10;
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
