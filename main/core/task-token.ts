// Task capability tokens (docs/task-binding.md). On the shared request.sock a task id is
// public knowledge (it is in prompts, history, logs); acting as the task needs the token
// task.start returned. The daemon keeps only its SHA-256 (the token is 256 random bits, so
// a plain hash is enough), compares in constant time, and a restart changes nothing: the
// id alone never acts as the task.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { redactTokenText, TOKEN_SEPARATOR, taskIdOf } from '../contract/task-ref';
import { RPC, RpcError } from '../contract/rpc';

export function newTaskToken(task: string): { token: string; hash: string } {
  const token = `${task}${TOKEN_SEPARATOR}${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashToken(token) };
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time: the digests always have the same length, whatever was presented. */
export function tokenMatches(storedHash: string | null, presented: string): boolean {
  if (!storedHash || storedHash.length !== 64) return false;
  const a = Buffer.from(hashToken(presented), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * What a caller on the shared socket named: `task` (an id or a token) and/or `token`.
 * Returns the task id and the token presented (null when none was).
 */
export function taskClaim(p: { task?: string; token?: string }): { task: string; token: string | null } | null {
  const ref = p.task ?? p.token;
  if (ref === undefined) return null;
  const inTask = p.task !== undefined && p.task.includes(TOKEN_SEPARATOR) ? p.task : null;
  if (inTask && p.token !== undefined && p.token !== inTask) {
    throw new RpcError(RPC.invalidParams, 'invalid params: token: "task" already holds a token and "token" is a different one; send one of them');
  }
  const task = taskIdOf(ref);
  if (p.token !== undefined && taskIdOf(p.token) !== task) {
    throw new RpcError(RPC.invalidParams, `invalid params: token: this is not a token of task ${task.slice(0, 64)}`);
  }
  return { task, token: inTask ?? p.token ?? null };
}

/**
 * Rejected lines are recorded as sent (capped); a token in them must not land in history,
 * which the human side lists and exports. Works on the recorded JSON text.
 */
export function redactTokens(text: string | null): string | null {
  if (text === null) return null;
  return redactTokenText(text).replace(/(\\?"token\\?"\s*:\s*\\?")[^"\\]*/g, '$1<redacted>');
}
