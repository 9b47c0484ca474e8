// Turns the facts of one sign request into the broker's vocabulary (DESIGN.md "SSH
// requests"): resource `user@host` for a login, `sshsig:<namespace>` for ssh-keygen -Y sign,
// a summary a human can read, and args with every fact — never key material.
import type { AgentRequest } from '../contract/agent';
import type { SshInfo } from '../contract/common';
import type { HostLookup } from './known-hosts';
import type { SignedData } from './signed-data';
import type { SshDestination } from './ssh-argv';

export interface KeyFacts {
  fingerprint: string;
  name: string;
  algorithm: string;
  origin: 'airlock' | 'ssh-add' | 'upstream';
  confirm: boolean;
}

export interface SignFacts {
  key: KeyFacts;
  signed: SignedData;
  signatureAlgorithm: string;
  /** Fingerprint of the destination's host key (hostbound request or session bind). */
  hostKeyFingerprint: string | null;
  hostLookup: HostLookup | null;
  forwarded: boolean;
  /** The destination the ssh process's argv names (a claim, shown as such). */
  argvDestination: SshDestination | null;
}

export const SSH_TOOL = 'ssh-sign';

// C0/C1 controls, zero-width and bidi formatting characters.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
export const printable = (s: string): string => s.replace(UNPRINTABLE, '\ufffd');
/** True when `s` holds a character `printable` would replace. */
export const hasUnprintable = (s: string): boolean => new RegExp(UNPRINTABLE.source).test(s);

/** Names come from clients (ssh-add comments, user names): cap them so a summary stays readable. */
const clip = (s: string, max = 200): string => (s.length > max ? s.slice(0, max) + '…' : s);

function keyLabel(k: KeyFacts): string {
  return k.name && k.name !== k.fingerprint ? `key '${clip(k.name)}' (${k.fingerprint})` : `key ${k.fingerprint}`;
}

export function describeSign(f: SignFacts): { request: AgentRequest; ssh: SshInfo } {
  // Names come from clients and files: shown in terminals and pop-ups, so no control or
  // direction-changing characters (no escape sequences, no right-to-left spoofing).
  const k = { ...f.key, name: printable(f.key.name) };
  const ssh: SshInfo = {
    key: k.fingerprint,
    keyName: k.name,
    fingerprint: k.fingerprint,
    purpose: f.signed.purpose,
    forwarded: f.forwarded,
  };
  const args: Record<string, unknown> = {
    purpose: f.signed.purpose,
    key: k.fingerprint,
    keyName: k.name,
    keyType: k.algorithm,
    keyOrigin: k.origin,
    signatureAlgorithm: f.signatureAlgorithm,
    forwarded: f.forwarded,
  };
  if (k.confirm) args.confirmRequired = true;
  if (f.argvDestination) {
    const d = f.argvDestination;
    args.argvDestination = `${d.user ? d.user + '@' : ''}${d.host}${d.port ? ':' + d.port : ''}`;
  }
  const via = f.forwarded ? ' through a forwarded agent' : '';
  let resource: string;
  let summary: string;
  const s: SignedData =
    f.signed.purpose === 'login'
      ? { ...f.signed, user: printable(f.signed.user) }
      : f.signed.purpose === 'sshsig'
        ? { ...f.signed, namespace: printable(f.signed.namespace) }
        : f.signed;
  if (s.purpose === 'login') {
    let host: string;
    let where: string;
    if (f.hostKeyFingerprint === null) {
      host = 'unverified-host';
      where = `${clip(s.user)} at a host the client did not bind (no session-bind)`;
    } else if (f.hostLookup?.match) {
      host = printable(f.hostLookup.match.host);
      where = `${clip(s.user)}@${host}`;
      args.hostKnownAs = f.hostLookup.match.hashed ? 'hashed known_hosts entry' : 'known_hosts entry';
    } else {
      host = f.hostKeyFingerprint;
      where = `${clip(s.user)}@${host} (host key not in known_hosts)`;
    }
    resource = `${s.user}@${host}`;
    summary = `login as ${where} with ${keyLabel(k)}${via}`;
    ssh.user = s.user;
    ssh.host = host;
    if (f.hostKeyFingerprint) ssh.hostKey = f.hostKeyFingerprint;
    Object.assign(args, { user: s.user, host, hostKey: f.hostKeyFingerprint, method: s.method, service: s.service });
    if (f.hostLookup?.revoked) {
      args.hostKeyRevoked = true;
      summary += ' — the host key is marked @revoked in known_hosts';
    }
  } else if (s.purpose === 'sshsig') {
    resource = `sshsig:${s.namespace}`;
    summary = `sign, namespace ${clip(s.namespace)}, with ${keyLabel(k)}${via}`;
    ssh.namespace = s.namespace;
    Object.assign(args, { namespace: s.namespace, hashAlgorithm: s.hashAlgorithm });
    if (f.hostKeyFingerprint) ssh.hostKey = f.hostKeyFingerprint;
  } else {
    resource = 'unknown-data';
    summary = `sign ${s.length} bytes of unrecognised data with ${keyLabel(k)}${via} — not a login or a file signature`;
    args.dataBytes = s.length;
    if (f.hostKeyFingerprint) ssh.hostKey = f.hostKeyFingerprint;
  }
  if (f.hostKeyFingerprint && ssh.hostKey === undefined) ssh.hostKey = f.hostKeyFingerprint;
  const request: AgentRequest = { source: 'ssh', tool: SSH_TOOL, action: 'sign', resource, summary, args };
  return { request, ssh };
}
