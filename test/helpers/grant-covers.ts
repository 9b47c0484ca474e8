// Whether a grant covers a shell line the way the core decides one: the line classified with
// /repo as its working directory and task directory, and every part that is not a read checked
// with partCovered. For classifier red-team rows whose oracle is "this grant must not run it".
import type { Grant } from '../../main/contract/approver';
import { classifyShell } from '../../main/core/classify/shell';
import { partCovered } from '../../main/core/grants';
import type { CoreRequest } from '../../main/core/request';

/** An allow grant for task `t`, any source and tool. */
export const allowGrant = (resource: string, action: Grant['action'] = 'write'): Grant => ({ id: 'g', task: 't', source: '*', tool: '*', action, resource, key: null, effect: 'allow', expiresAt: null, usesLeft: null, forwarded: false, remote: null, note: null, createdAt: 0, createdBy: 'human', revokedAt: null, lastUsedAt: null, when: null });

export function lineCovered(line: string, g: Grant): boolean {
  const cl = classifyShell(line, '/repo');
  const req = { source: 'exec', tool: 'exec', action: cl.action, resource: null, resources: cl.resources, summary: line, argsText: null, args: { command: line }, task: 't', cwd: '/repo', parts: cl.parts, classifierRisk: [] } as unknown as CoreRequest;
  return cl.parts.filter((p) => p.action !== 'read').every((p) => partCovered(g, req, p, 1, '/repo'));
}
