// How a socket path is written into an ssh line so that ssh reads it back unchanged, and how
// the daemon reads a written -R back (main/ssh/forward-spec.ts). The real ssh's reading is
// checked in test/integration/remoteleft-ssh-paths.test.ts; these rows pin the small rules.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { configWords, forwardAgentValue, forwardField, forwardFields, literalPath, reverseForwardTarget, sshPathProblem } from '../../main/ssh/forward-spec';

test('forwardField and forwardAgentValue: % doubled, : and \\ escaped in a -R field, quoted in an -o value only when needed', () => {
  assert.equal(forwardField('/run/user/1000/airlock/remotes/b/request.sock'), '/run/user/1000/airlock/remotes/b/request.sock');
  assert.equal(forwardField('/h/%d:x\\y'), '/h/%%d\\:x\\\\y');
  assert.equal(forwardAgentValue('/run/user/1000/airlock/agent.sock'), '/run/user/1000/airlock/agent.sock');
  assert.equal(forwardAgentValue('/h/%h'), '/h/%%h');
  assert.equal(forwardAgentValue('/h/a b#"\\'), '"/h/a b#\\"\\\\"');
  assert.throws(() => forwardField('/h/${HOME}'), /cannot be given to ssh/);
  assert.throws(() => forwardAgentValue('/h/a\nb'), /control character/);
  assert.equal(sshPathProblem('/h/$HOME'), null, 'a $ without { is literal to ssh');
});

test('read back: each written path is the path again; what ssh would expand is no literal path', () => {
  for (const p of ['/plain/request.sock', '/h/%d:%h#\\ x/request.sock', '/a/[b]/c']) {
    assert.deepEqual(forwardFields(`${forwardField('/srv.sock')}:${forwardField(p)}`)!.map((f) => literalPath(f)), ['/srv.sock', p]);
    assert.deepEqual(configWords(`x ${forwardAgentValue(p)}`)!.map((w) => literalPath(w)), ['x', p]);
  }
  assert.equal(reverseForwardTarget('/s:/h/%d/request.sock'), null, '%d is the home directory to ssh');
  assert.equal(reverseForwardTarget('/s:/h/${HOME}/request.sock'), null);
  assert.equal(reverseForwardTarget('[/s:x]:/c'), '/c');
  assert.equal(reverseForwardTarget('/s\\:x:/c\\\\d'), '/c\\d');
  assert.equal(reverseForwardTarget('/s "/c d"', true), '/c d');
  assert.equal(reverseForwardTarget('/s "/c d', true), null, 'an unclosed quote: ssh refuses the line');
  assert.equal(reverseForwardTarget('/s # /c', true), null, 'a comment ends the line');
  assert.equal(reverseForwardTarget('/only'), null);
});
