// The pieces of task binding that need no daemon: which task.start grants are blank
// cheques (needsConfirmation), how a claim of a task is read, tokens compared, and tokens
// kept out of recorded lines.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { describeTaskGrant, isAnyPattern } from '../../main/core/task-grants';
import { hashToken, newTaskToken, redactTokens, taskClaim, tokenMatches } from '../../main/core/task-token';
import { taskIdOf, isTaskToken } from '../../main/contract/task-ref';

describe('task.start grants: marks', () => {
  const flags = (s: Parameters<typeof describeTaskGrant>[0]) => {
    const g = describeTaskGrant(s, 0);
    return `${g.wildcard ? 'W' : '-'}${g.highImpact ? 'H' : '-'}${g.needsConfirmation ? 'C' : '-'}`;
  };
  const table: [Parameters<typeof describeTaskGrant>[0], string][] = [
    [{ action: '*', resource: '**', effect: 'allow' }, 'WHC'],
    [{ action: '*', resource: '/repo/src/a.ts', effect: 'allow' }, 'WHC'],
    [{ action: 'write', effect: 'allow' }, 'WHC'],
    [{ action: 'transfer', effect: 'allow' }, 'WHC'],
    [{ action: 'delete', resource: '/**', effect: 'allow' }, 'WHC'],
    [{ action: 'execute', resource: '*', tool: 'Bash', effect: 'allow' }, 'WHC'],
    [{ action: 'write', resource: '~/**', tool: 'Write', effect: 'allow' }, 'WHC'],
    [{ action: 'sign', effect: 'allow' }, 'WHC'],
    [{ action: 'write', resource: '/repo/src/**', effect: 'allow' }, 'WH-'],
    [{ action: 'write', resource: '/repo/src/a.ts', tool: 'Write', effect: 'allow' }, '-H-'],
    [{ action: 'execute', resource: 'npm test *', tool: 'Bash', effect: 'allow' }, 'WH-'],
    [{ action: 'read', effect: 'allow' }, 'W--'],
    [{ action: 'delete', effect: 'deny' }, 'WH-'],
    [{ action: '*', effect: 'deny' }, 'WH-'],
  ];
  for (const [spec, want] of table) {
    test(`${JSON.stringify(spec)} → ${want}`, () => assert.equal(flags(spec), want));
  }
  test('any-pattern: nothing but wildcards, slashes, dots and ~', () => {
    for (const p of [undefined, '*', '**', '/**', '~/**', '**/*', './**']) assert.ok(isAnyPattern(p), String(p));
    for (const p of ['/repo/**', 'npm *', 'host:*', 'x']) assert.ok(!isAnyPattern(p), p);
  });
  test('red team: glob spellings of "anything" without a lone * are any-patterns too (braces, extglobs, groups, classes, negation)', () => {
    for (const p of ['{**,x}', '@(**)', '+(**)', '*(**)', '(**)', '!x', '!(x)', '[[:print:]]**', '?(/)**', '**/**', '{/etc/**,/home/**}']) {
      assert.ok(isAnyPattern(p), p);
    }
    // Narrow patterns, including ones with glob syntax, stay narrow.
    for (const p of ['/repo/{src,test}/**', '/repo/@(a|b).ts', 'git@github.com', 'sshsig:git', 'example.com:443', '/repo/**|**', '/x|/**']) {
      assert.ok(!isAnyPattern(p), p);
    }
  });
  test('red team: any glob syntax marks a grant as a wildcard, a leading ! (negation) too', () => {
    for (const resource of ['!x', '(a)', '{a,b}', '[ab]', '@(a)']) assert.equal(flags({ action: 'read', resource, tool: 'T', effect: 'allow' })[0], 'W', resource);
    assert.equal(flags({ action: 'read', resource: 'git@github.com', tool: 'T', effect: 'allow' })[0], '-');
  });
});

describe('task claims and tokens', () => {
  test('a token is the task id, a dot and 256 random bits; only its hash is kept and it compares in constant time', () => {
    const { token, hash } = newTaskToken('t_abcdefghijkl');
    assert.match(token, /^t_abcdefghijkl\.[A-Za-z0-9_-]{43}$/);
    assert.ok(token.length <= 64, 'fits wherever a task id does');
    assert.equal(hash, hashToken(token));
    assert.ok(!hash.includes(token.split('.')[1]!));
    assert.ok(tokenMatches(hash, token));
    assert.ok(!tokenMatches(hash, token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A')));
    assert.ok(!tokenMatches(null, token), 'a task without a token (before migration 006) matches nothing');
    assert.ok(!tokenMatches('short', token));
    assert.equal(taskIdOf(token), 't_abcdefghijkl');
    assert.ok(isTaskToken(token) && !isTaskToken('t_abcdefghijkl'));
  });

  test('what a caller claims: task id, token beside it, or the token as task', () => {
    const tok = 't_abcdefghijkl.' + 'x'.repeat(43);
    assert.deepEqual(taskClaim({ task: 't_abcdefghijkl' }), { task: 't_abcdefghijkl', token: null });
    assert.deepEqual(taskClaim({ task: 't_abcdefghijkl', token: tok }), { task: 't_abcdefghijkl', token: tok });
    assert.deepEqual(taskClaim({ task: tok }), { task: 't_abcdefghijkl', token: tok });
    assert.deepEqual(taskClaim({ token: tok }), { task: 't_abcdefghijkl', token: tok });
    assert.equal(taskClaim({}), null);
    assert.throws(() => taskClaim({ task: 't_other', token: tok }), /not a token of task t_other/);
    assert.throws(() => taskClaim({ task: tok, token: 't_abcdefghijkl.' + 'y'.repeat(43) }), /different one/);
  });

  test('tokens are redacted from recorded lines', () => {
    const tok = 't_abcdefghijkl.' + 'S3cr3t_-'.repeat(5);
    const line = JSON.stringify(JSON.stringify({ params: { task: tok, token: 'anything at all' } }));
    const out = redactTokens(line)!;
    assert.ok(!out.includes('S3cr3t') && !out.includes('anything at all'), out);
    assert.ok(out.includes('t_abcdefghijkl.<token redacted>'));
    assert.equal(redactTokens(null), null);
  });
});
