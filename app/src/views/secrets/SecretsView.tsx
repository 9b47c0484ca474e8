// Secrets for the egress proxy (issue 16): list, add, remove, over the ApproverService.
// A value goes in once and never comes back: no method returns it, the field is a password
// field that is emptied as soon as the daemon answers (success or not), and the list shows
// only the name, hosts and headers. What a task's sandbox sees is a per-task placeholder.
import { useEffect, useState } from 'react';
import type { Secret } from '../../../../preload/types';
import { airlock } from '../../bridge';
import { V, vis } from '../../components/Visible';
import { formatRelative } from '../../format';
import { CANT_REACH, useConnection } from '../../state/connection-store';
import { attempt, useUi } from '../../state/ui-store';

/** "a.example, b.example" or one per line → a list (the daemon checks each). */
const listOf = (text: string) => text.split(/[\s,]+/).map((x) => x.trim()).filter(Boolean);

function AddForm({ onDone }: { onDone(): void }) {
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [hosts, setHosts] = useState('');
  const [headers, setHeaders] = useState('');
  const [busy, setBusy] = useState(false);
  const toast = useUi((s) => s.toast);
  async function submit(e: React.FormEvent) {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    const hs = listOf(headers);
    const r = await attempt('Could not add the secret', () => airlock()['secrets.add']({ name: name.trim(), value, hosts: listOf(hosts), ...(hs.length ? { headers: hs } : {}) }));
    // The value leaves the page's state at once, whatever the answer.
    setValue('');
    setBusy(false);
    if (r) {
      toast(`Secret ${vis(r.secret.name)} stored (sealed at rest); tasks that name it see only a placeholder`);
      setName('');
      setHosts('');
      setHeaders('');
      onDone();
    }
  }
  return (
    <form className="card secret-form" onSubmit={(e) => void submit(e)} data-testid="secret-add-form" autoComplete="off">
      <label>
        Name <span className="small muted">(the environment variable a task sees, e.g. GITHUB_TOKEN)</span>
        <input data-testid="secret-name" value={name} onChange={(e) => setName(e.target.value)} spellCheck={false} required />
      </label>
      <label>
        Value <span className="small muted">(never shown again)</span>
        <input data-testid="secret-value" type="password" autoComplete="new-password" value={value} onChange={(e) => setValue(e.target.value)} required />
      </label>
      <label>
        Hosts <span className="small muted">(only requests to these get the value; api.github.com, *.example.com)</span>
        <input data-testid="secret-hosts" value={hosts} onChange={(e) => setHosts(e.target.value)} spellCheck={false} required />
      </label>
      <label>
        Headers <span className="small muted">(optional, e.g. Authorization; empty: any request header)</span>
        <input data-testid="secret-headers" value={headers} onChange={(e) => setHeaders(e.target.value)} spellCheck={false} />
      </label>
      <div>
        <button className="btn primary" type="submit" data-testid="secret-add-submit" disabled={busy}>
          Add secret
        </button>
      </div>
    </form>
  );
}

export function SecretsView() {
  const [secrets, setSecrets] = useState<Secret[] | null>(null);
  const [adding, setAdding] = useState(false);
  const [confirming, setConfirming] = useState<string | null>(null);
  const toast = useUi((s) => s.toast);
  const conn = useConnection((s) => s.state);
  const load = () =>
    void attempt('Could not load secrets', async () => {
      const r = await airlock()['secrets.list']({});
      setSecrets(r.secrets);
    });
  useEffect(() => {
    load();
    return airlock().onNotification((n) => {
      if (n.method === 'secrets.changed') load();
    });
  }, []);

  async function remove(name: string) {
    setConfirming(null);
    const ok = await attempt('Could not remove the secret', () => airlock()['secrets.remove']({ name }));
    if (ok) {
      toast(`Secret ${vis(name)} removed; tasks started from now on cannot use it`);
      load();
    }
  }

  return (
    <div className="secrets-view">
      {conn !== 'open' && (
        <p className="banner" role="status">
          {CANT_REACH}
        </p>
      )}
      <p className="small muted">
        A task that names a secret (<span className="mono">airlock task start --sandbox --secret NAME</span>) sees only a placeholder; its egress proxy puts the value
        in only on requests to the secret’s hosts. Values are sealed at rest like SSH keys and cannot be read back here or anywhere.
      </p>
      <div className="btn-row">
        <button className="btn" data-testid="secret-add" onClick={() => setAdding(!adding)} aria-expanded={adding}>
          {adding ? 'Close' : 'Add a secret…'}
        </button>
      </div>
      {adding && <AddForm onDone={() => { setAdding(false); load(); }} />}
      {!secrets ? (
        <p className="muted">Loading…</p>
      ) : secrets.length === 0 ? (
        <p className="muted" data-testid="secrets-empty">No secrets yet.</p>
      ) : (
        <ul className="key-list" data-testid="secret-list">
          {secrets.map((s) => (
            <li key={s.name} className="card" data-testid="secret-item" data-name={s.name}>
              <strong className="mono"><V text={s.name} /></strong>
              <div className="small">
                for <span className="mono" data-testid="secret-hosts-shown"><V text={s.hosts.join(', ')} /></span>
                {s.headers.length ? <> · in <span className="mono"><V text={s.headers.join(', ')} /></span></> : ' · in any request header'}
              </div>
              <div className="small muted">added {formatRelative(s.createdAt)} · value hidden for good</div>
              {confirming !== s.name ? (
                <button className="btn small" data-testid="secret-remove" onClick={() => setConfirming(s.name)}>
                  Remove
                </button>
              ) : (
                <span className="btn-row" role="group" aria-label="Confirm remove secret">
                  <span className="small">Remove {vis(s.name)}? Running tasks keep what they were started with until they end.</span>
                  <button className="btn small danger-solid" data-testid="secret-remove-confirm" onClick={() => void remove(s.name)}>
                    Remove
                  </button>
                  <button className="btn small" data-testid="secret-remove-cancel" onClick={() => setConfirming(null)}>
                    Keep
                  </button>
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
