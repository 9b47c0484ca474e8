// The current time, advancing every `everyMs`, for views that show relative times ("3 min
// ago", "in 5 min"): without it such a text is frozen at the last render, and a key used a
// minute ago keeps saying "0 s ago" (a grant that has expired keeps saying "in 10 s").
import { useEffect, useState } from 'react';

export function useNow(everyMs = 10_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now;
}
