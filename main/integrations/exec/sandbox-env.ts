// What of the caller's environment a sandbox does not get. An agent in a sandbox should
// hold no credential: a key in its environment is one `env` away, and its way out (the
// egress proxy) asks about destinations, not about what a request carries. So variables
// whose names say they hold one (Codex CLI's default excludes, `*KEY*`, `*SECRET*`,
// `*TOKEN*`, plus passwords and credentials) stay outside, unless the human keeps one by
// name (`--keep-env NAME`) or gives it as a secret (`--secret NAME`: a placeholder inside,
// the value injected by the proxy on the secret's hosts only).

const CREDENTIAL_NAME = /KEY|SECRET|TOKEN|PASSW(OR)?D|CREDENTIAL|_AUTH\b|^AUTH/i;

/** Names Airlock sets inside itself (or unsets on purpose): never listed as withheld. */
const AIRLOCK_OWN = new Set(['AIRLOCK_TASK_TOKEN', 'SSH_AUTH_SOCK']);

/** The caller's variables the sandbox does not get, sorted; `keep` names pass anyway. */
export function withheldEnv(env: NodeJS.ProcessEnv, keep: readonly string[] = []): string[] {
  const kept = new Set(keep);
  return Object.keys(env)
    .filter((n) => env[n] !== undefined && CREDENTIAL_NAME.test(n) && !kept.has(n) && !AIRLOCK_OWN.has(n))
    .sort();
}

/** The line that tells the human what was withheld and how to pass it. */
export function withheldNote(names: readonly string[]): string {
  const shown = names.slice(0, 8).join(', ') + (names.length > 8 ? ` and ${names.length - 8} more` : '');
  return `airlock: the sandbox does not get ${shown} (they look like credentials): --keep-env NAME passes one as it is, --secret NAME lets the egress proxy add it on its hosts only`;
}
