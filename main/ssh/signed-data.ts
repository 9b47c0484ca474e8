// "What" is being signed: the agent only sees bytes, but two shapes are recognisable and
// cover almost every real use: an SSH user-auth request (a login, RFC 4252 §7) and an
// SSHSIG blob (ssh-keygen -Y sign, git's gpg.format=ssh). Anything else is "unknown",
// which the prompt shows as riskier: it could be a signature over anything.
import { Reader } from './wire';

const SSH_MSG_USERAUTH_REQUEST = 50;
export const HOSTBOUND_METHOD = 'publickey-hostbound-v00@openssh.com';
const SSHSIG_MAGIC = Buffer.from('SSHSIG');

export type SignedData =
  | {
      purpose: 'login';
      sessionId: Buffer;
      user: string;
      service: string;
      method: string;
      keyAlgorithm: string;
      /** The server's host key, only in publickey-hostbound requests. */
      hostKey: Buffer | null;
    }
  | { purpose: 'sshsig'; namespace: string; hashAlgorithm: string }
  | { purpose: 'unknown'; length: number };

function parseUserAuth(data: Buffer, keyBlob: Buffer): SignedData | null {
  try {
    const r = new Reader(data);
    const sessionId = r.string();
    if (sessionId.length === 0 || sessionId.length > 64) return null;
    if (r.byte() !== SSH_MSG_USERAUTH_REQUEST) return null;
    const user = r.text(1024);
    const service = r.text(256);
    const method = r.text(256);
    if (method !== 'publickey' && method !== HOSTBOUND_METHOD) return null;
    if (!r.bool()) return null;
    const keyAlgorithm = r.text(256);
    const key = r.string();
    // OpenSSH's agent refuses a user-auth request for a different key than the one asked for.
    if (!key.equals(keyBlob)) return null;
    const hostKey = method === HOSTBOUND_METHOD ? Buffer.from(r.string()) : null;
    r.end();
    return { purpose: 'login', sessionId: Buffer.from(sessionId), user, service, method, keyAlgorithm, hostKey };
  } catch {
    return null;
  }
}

function parseSshSig(data: Buffer): SignedData | null {
  if (data.length < SSHSIG_MAGIC.length || !data.subarray(0, SSHSIG_MAGIC.length).equals(SSHSIG_MAGIC)) return null;
  try {
    const r = new Reader(data.subarray(SSHSIG_MAGIC.length));
    const namespace = r.text(256);
    r.string(); // reserved
    const hashAlgorithm = r.text(64);
    r.string(); // H(message)
    r.end();
    if (namespace === '') return null;
    return { purpose: 'sshsig', namespace, hashAlgorithm };
  } catch {
    return null;
  }
}

export function parseSignedData(data: Buffer, keyBlob: Buffer): SignedData {
  // SSHSIG data is recognised by its magic first: a user-auth request can never start with
  // it (its first word would be a session id of 1.4 GB), and trying user-auth first threw a
  // WireError per git signature, 2.5% of the signing path's CPU in a profile (BENCHMARKS.md).
  const sshsig = data.length >= SSHSIG_MAGIC.length && data.subarray(0, SSHSIG_MAGIC.length).equals(SSHSIG_MAGIC);
  return (sshsig ? parseSshSig(data) : parseUserAuth(data, keyBlob)) ?? { purpose: 'unknown', length: data.length };
}
