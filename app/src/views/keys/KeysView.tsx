// SSH keys held by Airlock's agent: list, import (PEM or path, with passphrase),
// generate, remove, copy the public key.
import { useEffect, useState } from 'react';
import type { Key } from '../../../../preload/types';
import { airlock } from '../../bridge';
import { formatRelative } from '../../format';
import { useNow } from '../../components/use-now';
import { useLists } from '../../state/lists-store';
import { attempt, useUi } from '../../state/ui-store';
import { V, vis } from '../../components/Visible';

const KEY_TYPES = ['ed25519', 'ecdsa-p256', 'ecdsa-p384', 'ecdsa-p521', 'rsa-3072', 'rsa-4096'] as const;

async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Clipboard API refused (no user activation, or an http origin other than loopback).
    const ta = document.createElement('textarea');
    ta.value = text;
    document.body.appendChild(ta);
    ta.select();
    document.execCommand('copy');
    ta.remove();
  }
}

function ImportForm({ onDone }: { onDone(): void }) {
  const [mode, setMode] = useState<'pem' | 'path'>('pem');
  const [pem, setPem] = useState('');
  const [path, setPath] = useState('');
  const [passphrase, setPassphrase] = useState('');
  const [name, setName] = useState('');
  const toast = useUi((s) => s.toast);
  async function submit(e: React.FormEvent) {
    e.preventDefault();
    const params = {
      ...(mode === 'pem' ? { pem } : { path }),
      ...(passphrase ? { passphrase } : {}),
      ...(name ? { name } : {}),
    };
    const r = await attempt('Import failed', () => airlock()['keys.import'](params));
    setPassphrase('');
    if (r) {
      toast(`Imported ${r.key.name} (${r.key.fingerprint})`);
      onDone();
    }
  }
  return (
    <form className="card form-grid" onSubmit={(e) => void submit(e)} data-testid="key-import-form">
      <div className="wide">
        <label className="inline">
          <input type="radio" checked={mode === 'pem'} onChange={() => setMode('pem')} /> paste the private key
        </label>
        <label className="inline">
          <input type="radio" checked={mode === 'path'} onChange={() => setMode('path')} /> a file on the daemon’s machine
        </label>
      </div>
      {mode === 'pem' ? (
        <label className="wide">
          Private key (OpenSSH or PEM)
          <textarea rows={6} value={pem} onChange={(e) => setPem(e.target.value)} spellCheck={false} data-testid="key-pem" className="mono" />
        </label>
      ) : (
        <label className="wide">
          Path
          <input value={path} onChange={(e) => setPath(e.target.value)} placeholder="~/.ssh/id_ed25519" data-testid="key-path" />
        </label>
      )}
      <label>
        Passphrase
        <input type="password" value={passphrase} onChange={(e) => setPassphrase(e.target.value)} autoComplete="off" data-testid="key-passphrase" />
      </label>
      <label>
        Name
        <input value={name} onChange={(e) => setName(e.target.value)} data-testid="key-name" />
      </label>
      <div className="wide form-actions">
        <button type="button" className="btn" onClick={onDone}>
          Cancel
        </button>
        <button type="submit" className="btn primary" data-testid="key-import-submit">
          Import
        </button>
      </div>
    </form>
  );
}

function GenerateForm({ onDone }: { onDone(): void }) {
  const [type, setType] = useState<(typeof KEY_TYPES)[number]>('ed25519');
  const [name, setName] = useState('');
  const toast = useUi((s) => s.toast);
  async function submit(e: React.FormEvent) {
    e.preventDefault();
    const r = await attempt('Could not generate', () => airlock()['keys.generate']({ type, name }));
    if (r) {
      toast(`Generated ${r.key.name}`);
      onDone();
    }
  }
  return (
    <form className="card form-grid" onSubmit={(e) => void submit(e)} data-testid="key-generate-form">
      <label>
        Type
        <select value={type} onChange={(e) => setType(e.target.value as (typeof KEY_TYPES)[number])}>
          {KEY_TYPES.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
      </label>
      <label>
        Name
        <input required value={name} onChange={(e) => setName(e.target.value)} data-testid="key-generate-name" />
      </label>
      <div className="wide form-actions">
        <button type="button" className="btn" onClick={onDone}>
          Cancel
        </button>
        <button type="submit" className="btn primary">
          Generate
        </button>
      </div>
    </form>
  );
}

export function KeysView() {
  const now = useNow();
  const keys = useLists((s) => s.keys);
  const keysError = useLists((s) => s.keysError);
  const loadKeys = useLists((s) => s.loadKeys);
  const toast = useUi((s) => s.toast);
  const [form, setForm] = useState<'import' | 'generate' | null>(null);
  useEffect(() => {
    void loadKeys();
  }, [loadKeys]);

  async function remove(k: Key) {
    if (!window.confirm(`Remove key “${vis(k.name)}” (${k.fingerprint})? Agents can no longer sign with it.`)) return;
    const ok = await attempt('Could not remove', () => airlock()['keys.remove']({ fingerprint: k.fingerprint }));
    if (ok) {
      toast(`Removed ${vis(k.name)}`);
      void loadKeys();
    }
  }

  const done = () => {
    setForm(null);
    void loadKeys();
  };

  return (
    <div className="keys-view">
      <div className="toolbar">
        <span />
        <span>
          <button className="btn small" onClick={() => setForm('import')} data-testid="key-import">
            Import key
          </button>{' '}
          <button className="btn small" onClick={() => setForm('generate')} data-testid="key-generate">
            Generate key
          </button>
        </span>
      </div>
      {form === 'import' && <ImportForm onDone={done} />}
      {form === 'generate' && <GenerateForm onDone={done} />}
      {keysError && <p className="muted">Keys are not available: {keysError}</p>}
      {!keysError && keys.length === 0 && <p className="muted empty">No keys yet. Import one or generate one.</p>}
      {keys.length > 0 && (
        <table className="table" data-testid="keys-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Type</th>
              <th>Fingerprint</th>
              <th>From</th>
              <th>Last used</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.fingerprint} data-testid="key-row">
                <td>
                  <strong><V text={k.name} /></strong>
                  {k.comment && k.comment !== k.name && <div className="small muted"><V text={k.comment} /></div>}
                </td>
                <td>{k.type}</td>
                <td className="mono small break">{k.fingerprint}</td>
                <td className="small">{k.origin}</td>
                <td className="small">{formatRelative(k.lastUsedAt, now)}</td>
                <td className="nowrap">
                  <button
                    className="btn small"
                    onClick={() =>
                      void copyText(k.publicKey).then(
                        () => toast('Public key copied'),
                        () => toast('Could not copy', 'error'),
                      )
                    }
                  >
                    Copy public key
                  </button>{' '}
                  {k.origin === 'airlock' && (
                    <button className="btn small danger" onClick={() => void remove(k)}>
                      Remove
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
