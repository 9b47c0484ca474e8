import { useEffect, useState } from 'react';
import type { PolicyChoice, Settings, SettingsPatch } from '../../../../preload/types';
import { airlock } from '../../bridge';
import { useLists } from '../../state/lists-store';
import { attempt, useUi } from '../../state/ui-store';

const ACTIONS = ['read', 'write', 'delete', 'transfer', 'execute', 'sign', 'other'] as const;
const CHOICES: PolicyChoice[] = ['allow', 'ask', 'deny'];

export function SettingsView({ host }: { host: 'electron' | 'web' }) {
  const settings = useLists((s) => s.settings);
  const loadSettings = useLists((s) => s.loadSettings);
  const toast = useUi((s) => s.toast);
  const [draft, setDraft] = useState<Settings | null>(null);
  useEffect(() => {
    void attempt('Could not load settings', loadSettings);
  }, [loadSettings]);
  useEffect(() => setDraft(settings), [settings]);
  if (!draft) return <p className="muted">Loading…</p>;

  async function save(e: React.FormEvent) {
    e.preventDefault();
    if (!draft) return;
    const patch: SettingsPatch = {
      promptTimeoutSec: draft.promptTimeoutSec,
      policy: draft.policy,
      upstreamAgent: draft.upstreamAgent && draft.upstreamAgent.trim() ? draft.upstreamAgent.trim() : null,
      notifications: draft.notifications,
      startAtLogin: draft.startAtLogin,
      maxPendingPerTask: draft.maxPendingPerTask,
      maxPendingPerConnection: draft.maxPendingPerConnection,
      maxPendingTotal: draft.maxPendingTotal,
    };
    const r = await attempt('Could not save', () => airlock()['settings.set'](patch));
    if (r) {
      useLists.setState({ settings: r.settings });
      toast('Settings saved');
    }
  }

  return (
    <form className="settings card" onSubmit={(e) => void save(e)} data-testid="settings-form">
      <label>
        Prompt timeout (seconds; unanswered prompts are denied)
        <input
          type="number"
          min={5}
          max={3600}
          value={draft.promptTimeoutSec}
          onChange={(e) => setDraft({ ...draft, promptTimeoutSec: Number(e.target.value) })}
          data-testid="setting-timeout"
        />
      </label>
      <fieldset>
        <legend>Default policy per action (when no grant matches)</legend>
        <div className="policy-grid">
          {ACTIONS.map((a) => (
            <label key={a}>
              {a}
              <select
                value={draft.policy[a] ?? 'ask'}
                onChange={(e) => setDraft({ ...draft, policy: { ...draft.policy, [a]: e.target.value as PolicyChoice } })}
                data-testid={`policy-${a}`}
              >
                {CHOICES.map((c) => (
                  <option key={c}>{c}</option>
                ))}
              </select>
            </label>
          ))}
        </div>
      </fieldset>
      <label>
        Upstream SSH agent (socket path; keys there are offered through Airlock, each signature still asks)
        <input
          value={draft.upstreamAgent ?? ''}
          onChange={(e) => setDraft({ ...draft, upstreamAgent: e.target.value })}
          placeholder="none"
          spellCheck={false}
        />
      </label>
      <label>
        Most pending prompts per task
        <input
          type="number"
          min={1}
          max={1000}
          value={draft.maxPendingPerTask}
          onChange={(e) => setDraft({ ...draft, maxPendingPerTask: Number(e.target.value) })}
        />
      </label>
      <label>
        Most pending prompts per connection (across its tasks)
        <input
          type="number"
          min={1}
          max={10000}
          value={draft.maxPendingPerConnection}
          onChange={(e) => setDraft({ ...draft, maxPendingPerConnection: Number(e.target.value) })}
        />
      </label>
      <label>
        Most pending prompts in total (beyond it, new requests are denied at once and recorded)
        <input
          type="number"
          min={1}
          max={10000}
          value={draft.maxPendingTotal}
          onChange={(e) => setDraft({ ...draft, maxPendingTotal: Number(e.target.value) })}
        />
      </label>
      <label className="inline">
        <input type="checkbox" checked={draft.notifications} onChange={(e) => setDraft({ ...draft, notifications: e.target.checked })} /> Desktop notification when a grant
        allows a high-impact action
      </label>
      <label className="inline">
        <input type="checkbox" checked={draft.startAtLogin} onChange={(e) => setDraft({ ...draft, startAtLogin: e.target.checked })} /> Start at login
        {host === 'web' && <span className="muted small"> (applies to the desktop app)</span>}
      </label>
      <div className="form-actions">
        <button type="submit" className="btn primary" data-testid="settings-save">
          Save
        </button>
      </div>
    </form>
  );
}
