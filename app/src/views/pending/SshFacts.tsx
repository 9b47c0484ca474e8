// What an SSH signature is for: which key, login to user@host or an sshsig namespace,
// and whether it came through agent forwarding (from another machine).
import type { SshInfo } from '../../../../preload/types';
import { V } from '../../components/Visible';

export function SshFacts({ ssh }: { ssh: SshInfo }) {
  return (
    <section className="facts ssh" data-testid="ssh-facts">
      <h3>
        SSH signature {ssh.forwarded && <span className="badge forwarded" data-testid="forwarded-badge">forwarded</span>}
      </h3>
      <dl>
        <dt>Key</dt>
        <dd data-testid="ssh-key-name">{ssh.keyName ? <V text={ssh.keyName} /> : '(unnamed key)'}</dd>
        <dt>Fingerprint</dt>
        <dd className="mono" data-testid="ssh-fingerprint">{ssh.fingerprint}</dd>
        {ssh.purpose === 'login' && (
          <>
            <dt>Login</dt>
            <dd className="mono strong" data-testid="ssh-login">
              <V text={ssh.user ?? '?'} />@<V text={ssh.host ?? 'unknown host'} />
            </dd>
            {ssh.hostKey && (
              <>
                <dt>Host key</dt>
                <dd className="mono small"><V text={ssh.hostKey} /></dd>
              </>
            )}
          </>
        )}
        {ssh.purpose === 'sshsig' && (
          <>
            <dt>Signs</dt>
            <dd className="mono strong" data-testid="ssh-namespace">
              namespace “<V text={ssh.namespace ?? '?'} />”{ssh.namespace === 'git' ? ' (a git commit or tag signature)' : ''}
            </dd>
          </>
        )}
        {ssh.purpose === 'unknown' && (
          <>
            <dt>Signs</dt>
            <dd className="strong">data of unknown purpose (not a login, not an sshsig)</dd>
          </>
        )}
      </dl>
    </section>
  );
}
