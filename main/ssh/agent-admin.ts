// Changes to the agent itself — ssh-add -d / -D (remove keys), -x / -X (lock, unlock) —
// asked from the shared agent.sock. That socket is the human's SSH_AUTH_SOCK and every
// agent's too, and both run as the same user: the socket cannot tell `ssh-add -D` typed by
// the human from one run by an agent. So, like a signature, each change is a request the
// human answers (or a grant covers) before it happens, and it lands in history:
// - an agent cannot remove the keys the human added with ssh-add, nor lock the human out
//   with a passphrase only it knows;
// - unlocking asks first and checks the passphrase only after an allow, so a locked agent
//   cannot be brute-forced without a person approving every guess.
// Adding a key (ssh-add KEY) does not ask: whoever sends it already holds the private key,
// the key is memory-only, is marked "added by ssh-add" in every prompt, and each signature
// with it asks like any other. Nothing is asked when nothing would change (no such ssh-add
// key, an empty lock passphrase, an agent that is not locked). Task sockets refuse all of
// these outright (agent-server.ts).
import type { AgentRequest } from '../contract/agent';
import { printable } from './describe';
import type { KeyEntry } from './key-store';

/** The tool of these requests (signatures are `ssh-sign`). */
export const SSH_AGENT_TOOL = 'ssh-agent';

const MAX_NAMES = 8;
const name = (e: KeyEntry): string => {
  const n = printable(e.name).slice(0, 100);
  return n && n !== e.key.fingerprint ? `'${n}' (${e.key.fingerprint})` : e.key.fingerprint;
};

function request(action: AgentRequest['action'], resource: string, summary: string, args: Record<string, unknown>): AgentRequest {
  return { source: 'ssh', tool: SSH_AGENT_TOOL, action, resource, summary, args: { operation: resource.slice('ssh-agent:'.length), ...args } };
}

export function removeKeyRequest(e: KeyEntry): AgentRequest {
  return request('delete', 'ssh-agent:remove-key', `ssh-add -d: remove key ${name(e)}, added by ssh-add, from the SSH agent`, {
    key: e.key.fingerprint,
    keyName: printable(e.name),
  });
}

export function removeAllRequest(removed: KeyEntry[], kept: number): AgentRequest {
  const names = removed.slice(0, MAX_NAMES).map(name).join(', ') + (removed.length > MAX_NAMES ? `, and ${removed.length - MAX_NAMES} more` : '');
  const stays = kept > 0 ? `; ${kept} stored key(s) stay` : '';
  return request('delete', 'ssh-agent:remove-all', `ssh-add -D: remove the ${removed.length} key(s) added by ssh-add from the SSH agent (${names})${stays}`, {
    keys: removed.slice(0, 64).map((e) => e.key.fingerprint),
    count: removed.length,
    storedKeysKept: kept,
  });
}

export function lockRequest(): AgentRequest {
  return request('other', 'ssh-agent:lock', 'ssh-add -x: lock the SSH agent — nothing is listed or signed until ssh-add -X with the same passphrase (or a restart of Airlock)', {});
}

export function unlockRequest(): AgentRequest {
  return request('other', 'ssh-agent:unlock', 'ssh-add -X: try to unlock the SSH agent (the passphrase is checked only after you allow)', {});
}
