// How a client names a task on request.sock (docs/task-binding.md), without zod: the
// client library and the Claude Code hook load this on every call.
//
// A task id is `t_` + 12 base64url characters (no '.'). A capability token is
// `<task id>.<43 base64url characters: 256 random bits>` — at most 64 characters, so it
// fits wherever a task id does, and a client that passes along what task.start returned
// (the token as `task`) still works.

export const TOKEN_SEPARATOR = '.';

/** The task id a task id or token names. */
export function taskIdOf(ref: string): string {
  const i = ref.indexOf(TOKEN_SEPARATOR);
  return i < 0 ? ref : ref.slice(0, i);
}

/** True when `ref` is shaped like a token (it is checked by the daemon, not here). */
export function isTaskToken(ref: string): boolean {
  return ref.includes(TOKEN_SEPARATOR);
}

/**
 * A token's secret half, wherever it appears in text, replaced by `<token redacted>` (the
 * task id stays readable). `airlock exec --task TOKEN` and `airlock check --task TOKEN`
 * put a token on a command line, and the daemon records the command line of every
 * requester and its ancestors: history and prompts must hold the id, never the secret.
 */
export function redactTokenText(text: string): string {
  return text.replace(/(t_[A-Za-z0-9_-]{12})\.[A-Za-z0-9_-]{20,}/g, '$1.<token redacted>');
}
