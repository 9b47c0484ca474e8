// Shared vocabulary of Airlock (see DESIGN.md "Words"). Every boundary validates
// against these schemas; TypeScript types are inferred from them, never written twice.
import { z } from 'zod';

import { ACTION_RANK, ACTIONS, LIMITS, RISK_LEVELS, SOURCES, riskier } from './constants';

export { ACTION_RANK, ACTIONS, LIMITS, RISK_LEVELS, SOURCES, riskier };

export const Action = z.enum(ACTIONS);
export type Action = z.infer<typeof Action>;

export const Source = z.enum(SOURCES);
export type Source = z.infer<typeof Source>;

export const Decision = z.enum(['allow', 'deny']);
export type Decision = z.infer<typeof Decision>;

/** What history records: `reject` is a malformed or refused attempt that never reached policy. */
export const Outcome = z.enum(['allow', 'deny', 'reject']);
export type Outcome = z.infer<typeof Outcome>;

export const DecidedBy = z.enum(['grant', 'human', 'policy', 'timeout', 'invalid', 'system']);
export type DecidedBy = z.infer<typeof DecidedBy>;

export const Scope = z.enum(['once', 'task', 'duration', 'always']);
export type Scope = z.infer<typeof Scope>;

export const RiskLevel = z.enum(RISK_LEVELS);
export type RiskLevel = z.infer<typeof RiskLevel>;

export const Risk = z.object({
  level: RiskLevel,
  reasons: z.array(z.string()),
});
export type Risk = z.infer<typeof Risk>;

export const PolicyChoice = z.enum(['allow', 'ask', 'deny']);
export type PolicyChoice = z.infer<typeof PolicyChoice>;

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * An ISO-8601 date or date and time (`2026-11-24`, `2026-11-24T09:30`, `…:00Z`, `…+01:00`)
 * as milliseconds since the epoch, or null. Only ISO: Date.parse also takes "0" (the year
 * 2000), "11/24/2026" and "2026-02-30" (2 March), so a typo became some other time.
 */
export function parseIsoTime(s: string): number | null {
  const m = ISO_TIME.exec(s.trim());
  if (!m) return null;
  const [y, mo, d, h, mi, sec] = [m[1], m[2], m[3], m[4] ?? '0', m[5] ?? '0', m[6] ?? '0'].map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > new Date(Date.UTC(y, mo, 0)).getUTCDate() || h > 23 || mi > 59 || sec > 59) return null;
  const t = Date.parse(s.trim().replace(' ', 'T'));
  return Number.isNaN(t) ? null : t;
}

/** Milliseconds since the Unix epoch; ISO-8601 strings are accepted on input. */
export const Timestamp = z.union([
  z.number().int().nonnegative(),
  z
    .string()
    .max(64)
    .refine((s) => parseIsoTime(s) !== null, 'must be an ISO-8601 date (2026-11-24, 2026-11-24T09:30:00Z) or milliseconds since epoch')
    .transform((s) => parseIsoTime(s)!),
]);

/** A secret's name is also the environment variable its placeholder is set in. */
export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export const Id = z.string().min(1).max(64).regex(/^[A-Za-z0-9_.:-]+$/, 'must be letters, digits, _ . : -');

export const ProcessNode = z.object({
  pid: z.number().int(),
  exe: z.string().nullable(),
  argv: z.array(z.string()),
});
export type ProcessNode = z.infer<typeof ProcessNode>;

/** Who asked: peer credentials of the socket and the process tree up to the session leader. */
export const ProcessInfo = z.object({
  pid: z.number().int(),
  uid: z.number().int(),
  gid: z.number().int().optional(),
  exe: z.string().nullable(),
  argv: z.array(z.string()),
  tree: z.array(ProcessNode),
});
export type ProcessInfo = z.infer<typeof ProcessInfo>;

/** A remote's name (`airlock remote NAME`): letters, digits and dashes, as in a host name. */
export const RemoteName = z.string().min(1).max(32).regex(/^[A-Za-z0-9][A-Za-z0-9-]*$/, 'must be letters, digits and dashes');

/**
 * A request that arrived through a remote's socket (`ssh -R` from another machine): which
 * remote, and the SSH connection it came through (the local `ssh` client that forwards
 * it). Set by the daemon from the socket, never taken from the agent's JSON.
 */
export const RemoteInfo = z.object({
  name: z.string(),
  via: z.string(),
});
export type RemoteInfo = z.infer<typeof RemoteInfo>;

/** SSH-specific facts of a signature request (DESIGN.md "SSH requests"). */
export const SshInfo = z.object({
  key: z.string(),
  keyName: z.string().optional(),
  fingerprint: z.string(),
  purpose: z.enum(['login', 'sshsig', 'unknown']),
  user: z.string().optional(),
  host: z.string().optional(),
  hostKey: z.string().optional(),
  namespace: z.string().optional(),
  forwarded: z.boolean(),
});
export type SshInfo = z.infer<typeof SshInfo>;
