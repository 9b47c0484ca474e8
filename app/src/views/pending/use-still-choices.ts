// A click counts only on a button that has been where it is, and uncovered, for the guard
// time (red team of the human side, test/e2e/humanside-prompt-guards.test.ts). The input
// guard counts from the card's first frame; but a card can move under a pointer that is
// already resting where its "Allow once" button is about to be: a second request makes the
// "1 of 2" queue appear above a short card (the card slides down by its height), a toast
// that covered the buttons goes away, the window is resized. The click the human was
// making on something else then lands on a button that was never there to be seen.
//
// So the card watches where its buttons and fields are on screen and whether each is
// uncovered at its centre; when that changes other than by scrolling, the guard holds
// again for its full time. Scrolling moves everything with it (the human's own wheel, or
// the browser keeping what is on screen in place when content is added above), so a
// change that comes with a change of any scroll offset is taken as a scroll, not a shift.
// Checked after every DOM change (a MutationObserver: React's commits, toasts), after a
// resize of the window or the card, and on scroll (to take the new places as seen).
import { useEffect, type RefObject } from 'react';

/** Where the controls of `card` are on screen, and whether each is uncovered at its centre. */
function layoutOf(card: HTMLElement): string {
  const parts: string[] = [];
  for (const el of card.querySelectorAll<HTMLElement>('button, input, textarea, select, summary')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) {
      parts.push('-');
      continue;
    }
    const cx = r.left + r.width / 2;
    const cy = r.top + r.height / 2;
    const inView = cx >= 0 && cy >= 0 && cx < window.innerWidth && cy < window.innerHeight;
    const top = inView ? document.elementFromPoint(cx, cy) : null;
    const uncovered = top !== null && (top === el || el.contains(top));
    parts.push(`${Math.round(r.left)},${Math.round(r.top)},${Math.round(r.width)},${Math.round(r.height)},${inView ? (uncovered ? 'v' : 'c') : 'o'}`);
  }
  return parts.join(' ');
}

/** Every scroll offset that moves the card on screen: its scrolling ancestors' and the window's. */
function scrollsOf(card: HTMLElement): string {
  const parts: number[] = [window.scrollX, window.scrollY];
  for (let el = card.parentElement; el; el = el.parentElement) parts.push(el.scrollLeft, el.scrollTop);
  return parts.join(',');
}

/** Calls `moved` whenever the card's controls move or are covered or uncovered, other than by a scroll. */
export function useStillChoices(cardRef: RefObject<HTMLElement | null>, moved: () => void): void {
  useEffect(() => {
    const card = cardRef.current;
    if (!card) return;
    let layout = layoutOf(card);
    let scrolls = scrollsOf(card);
    const check = (scrolled: boolean) => {
      const l = layoutOf(card);
      const s = scrollsOf(card);
      const shifted = l !== layout && s === scrolls && !scrolled;
      layout = l;
      scrolls = s;
      if (shifted) moved();
    };
    const onChange = () => check(false);
    const onScroll = () => check(true);
    const mutations = new MutationObserver(onChange);
    mutations.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    const sizes = new ResizeObserver(onChange);
    sizes.observe(card);
    window.addEventListener('resize', onChange);
    // Capture: scroll events of elements do not bubble, but pass the document on the way down.
    document.addEventListener('scroll', onScroll, true);
    return () => {
      mutations.disconnect();
      sizes.disconnect();
      window.removeEventListener('resize', onChange);
      document.removeEventListener('scroll', onScroll, true);
    };
  }, [cardRef, moved]);
}
