// The classifier keeps zod-free copies of contract constants (for the hook's start-up
// time); they must not drift from the contract.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ACTION_RANK as CONTRACT_RANK, LIMITS as CONTRACT_LIMITS } from '../../main/contract/common';
import { ACTION_RANK, LIMITS } from '../../main/core/classify/limits';

test('classifier constants equal the contract', () => {
  assert.deepEqual(ACTION_RANK, CONTRACT_RANK);
  assert.equal(LIMITS.text, CONTRACT_LIMITS.text);
  assert.equal(LIMITS.summary, CONTRACT_LIMITS.summary);
  assert.equal(LIMITS.resources, CONTRACT_LIMITS.resources);
});
