// The pop-up window Electron opens for one pending prompt (?prompt=<id>): the prompt and
// nothing else; main closes the window when the prompt is resolved. Main hands the prompt
// over in the URL (`given`); only without it is the pending list fetched.
import { useEffect } from 'react';
import { Announcer } from './components/Announcer';
import { Toasts } from './components/Toasts';
import { usePending } from './state/pending-store';
import { attempt } from './state/ui-store';
import { PromptCard } from './views/pending/PromptCard';
import type { Prompt } from '../../preload/types';

export function Popup({ id, given }: { id: string; given: Prompt | null }) {
  const prompt = usePending((s) => s.prompts.find((p) => p.id === id));
  const loaded = usePending((s) => s.loaded);
  useEffect(() => {
    if (given) {
      usePending.getState().added(given);
      usePending.setState({ loaded: true });
      return;
    }
    void attempt('Could not load the request', () => usePending.getState().load());
  }, [given]);
  return (
    <div className="popup">
      {prompt ? <PromptCard key={prompt.id} prompt={prompt} keyboard /> : <p className="muted center">{loaded ? 'Already decided.' : 'Loading…'}</p>}
      <Toasts />
      <Announcer />
    </div>
  );
}
