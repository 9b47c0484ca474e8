// The pop-up window Electron opens for one pending prompt (?prompt=<id>): the prompt and
// nothing else; main closes the window when the prompt is resolved.
import { useEffect } from 'react';
import { Announcer } from './components/Announcer';
import { Toasts } from './components/Toasts';
import { usePending } from './state/pending-store';
import { attempt } from './state/ui-store';
import { PromptCard } from './views/pending/PromptCard';

export function Popup({ id }: { id: string }) {
  const prompt = usePending((s) => s.prompts.find((p) => p.id === id));
  const loaded = usePending((s) => s.loaded);
  useEffect(() => {
    void attempt('Could not load the request', () => usePending.getState().load());
  }, []);
  return (
    <div className="popup">
      {prompt ? <PromptCard key={prompt.id} prompt={prompt} keyboard /> : <p className="muted center">{loaded ? 'Already decided.' : 'Loading…'}</p>}
      <Toasts />
      <Announcer />
    </div>
  );
}
