// Grants in words (shared/grant-words.ts): what a person reads instead of raw globs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { grantInWords, isWildcardAllow, resourceInWords, toolInWords } from '../../shared/grant-words';

test('grant words: resource globs read as places', () => {
  assert.equal(resourceInWords('/repo/src/**'), 'anything under /repo/src/');
  assert.equal(resourceInWords('/repo/*'), 'files directly in /repo/');
  assert.equal(resourceInWords('/repo/a.txt'), 'exactly /repo/a.txt');
  assert.equal(resourceInWords('**'), 'anything');
  assert.equal(resourceInWords(null), 'anything');
  assert.equal(resourceInWords('{/a/**,/b/c}'), 'anything under /a/ or exactly /b/c');
  assert.equal(resourceInWords('/x/*.log'), 'what matches /x/*.log');
  assert.equal(resourceInWords('/home/**/.git/**'), 'what matches /home/**/.git/**');
});

test('grant words: tool globs read as tools and commands', () => {
  assert.equal(toolInWords('{Edit,MultiEdit,NotebookEdit,Write}'), 'Edit, MultiEdit, NotebookEdit or Write');
  assert.equal(toolInWords('{rm,rm *}'), 'rm or any `rm` command');
  assert.equal(toolInWords('*'), 'any tool');
  assert.equal(toolInWords('fs.*'), 'tools matching fs.*');
});

test('grant words: the whole grant, with its task, end and uses', () => {
  assert.equal(
    grantInWords({ effect: 'allow', action: 'write', tool: 'fs.write', resource: '/srv/docs/**', task: 't1' }, 'fix the docs'),
    'Allows writes by fs.write on anything under /srv/docs/ — in task “fix the docs” only, until the task ends',
  );
  assert.equal(grantInWords({ effect: 'deny', action: '*', tool: '*', resource: '**', task: null, expiresAt: null }), 'Denies every action by any tool on anything — in every task, with no end');
  assert.match(grantInWords({ effect: 'allow', action: 'delete', tool: 'rm *', resource: '/tmp/**', usesLeft: 1 }), /any `rm` command .* 1 use left$/);
  assert.match(grantInWords({ effect: 'allow', action: ['write', 'delete'], tool: '*', resource: '/tmp/**', whenText: 'args.bytes < 1000' }), /^Allows writes or deletes by any tool on anything under \/tmp\/, when args.bytes < 1000 — /);
});

test('grant words: a wildcard allow of a high-impact action is flagged; narrow ones and denies are not', () => {
  assert.equal(isWildcardAllow({ effect: 'allow', action: '*', tool: '*', resource: '**' }), true);
  assert.equal(isWildcardAllow({ effect: 'allow', action: 'write', tool: 'fs.write', resource: '*' }), true);
  assert.equal(isWildcardAllow({ effect: 'allow', action: 'delete', tool: 'rm *', resource: '/**' }), true);
  assert.equal(isWildcardAllow({ effect: 'allow', action: 'execute', tool: '*', resource: '/repo/**' }), true);
  assert.equal(isWildcardAllow({ effect: 'allow', action: 'write', tool: 'fs.write', resource: '/repo/src/**' }), false);
  assert.equal(isWildcardAllow({ effect: 'allow', action: 'read', tool: '*', resource: '**' }), false);
  assert.equal(isWildcardAllow({ effect: 'deny', action: '*', tool: '*', resource: '**' }), false);
  assert.equal(isWildcardAllow({ effect: 'allow', action: ['read', 'transfer'], tool: 'curl *', resource: '**' }), true);
});
