// Zod-free copies of the contract constants the classifier needs. The Claude Code hook
// loads the classifier for Bash calls and must start fast; contract/common.ts pulls in
// zod (~70 ms). test/unit/classify-limits.test.ts asserts these equal the contract's.
import type { Action } from '../../contract/common';

export const ACTION_RANK: Record<Action, number> = {
  read: 0,
  other: 1,
  write: 2,
  sign: 3,
  delete: 4,
  transfer: 5,
  execute: 6,
};

export const LIMITS = {
  text: 4096,
  summary: 2000,
  resources: 256,
} as const;

export const riskier = (a: Action, b: Action): Action => (ACTION_RANK[b] > ACTION_RANK[a] ? b : a);
