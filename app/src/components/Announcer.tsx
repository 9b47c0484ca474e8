// Screen reader announcements (issue 11 item 9): a new prompt is announced at once
// (assertive), other news politely. Visually hidden; the text is the agent's, escaped.
import { create } from 'zustand';
import { vis } from './Visible';

type Announce = { urgent: string; polite: string; say(text: string, urgent?: boolean): void };

export const useAnnounce = create<Announce>((set) => ({
  urgent: '',
  polite: '',
  // A counter suffix would be read out; toggling a trailing no-break space makes a repeat
  // of the same sentence a change that screen readers announce again.
  say: (text, urgent = false) =>
    set((s) => {
      const t = vis(text);
      return urgent ? { urgent: s.urgent === t ? `${t}\u00a0` : t } : { polite: s.polite === t ? `${t}\u00a0` : t };
    }),
}));

export function Announcer() {
  const urgent = useAnnounce((s) => s.urgent);
  const polite = useAnnounce((s) => s.polite);
  return (
    <>
      <div className="sr-only" role="alert" aria-live="assertive" aria-atomic="true" data-testid="announce-urgent">
        {urgent}
      </div>
      <div className="sr-only" role="status" aria-live="polite" aria-atomic="true" data-testid="announce-polite">
        {polite}
      </div>
    </>
  );
}
