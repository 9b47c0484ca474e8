// The history hash chain. A row's hash covers every stored column (as stored text) and
// the previous row's hash, so changing, removing or reordering any row breaks the chain.
import * as crypto from 'node:crypto';

export const GENESIS = '0'.repeat(64);

export interface ChainedColumns {
  id: number;
  ts: number;
  task: string | null;
  source: string;
  tool: string;
  action: string;
  resource: string | null;
  resources: string;
  summary: string;
  args: string | null;
  cwd: string | null;
  process: string | null;
  ssh: string | null;
  risk_level: string;
  risk_reasons: string;
  decision: string;
  decided_by: string;
  grant_id: string | null;
  scope: string | null;
  reason: string;
  /** JSON of RemoteInfo; NULL for local requests (and every row before migration 006). */
  remote: string | null;
}

export function rowHash(prevHash: string, r: ChainedColumns): string {
  const canonical = JSON.stringify([
    r.id, r.ts, r.task, r.source, r.tool, r.action, r.resource, r.resources, r.summary, r.args,
    r.cwd, r.process, r.ssh, r.risk_level, r.risk_reasons, r.decision, r.decided_by, r.grant_id,
    r.scope, r.reason,
    // Hashed only when set, so rows written before the column existed still verify;
    // clearing it on a remote row changes the hash like any other edit.
    ...(r.remote !== null && r.remote !== undefined ? [r.remote] : []),
  ]);
  // One-shot hash of one string (issue 15: a Hash object and three updates per event showed in
  // the decision profile). The bytes hashed are the same: prevHash, "\n", canonical, as UTF-8.
  return sha256Hex(`${prevHash}\n${canonical}`);
}

/** crypto.hash (Node >= 20.12, every version package.json allows); createHash where it is missing. */
const sha256Hex: (text: string) => string =
  typeof (crypto as { hash?: unknown }).hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text).digest('hex');
