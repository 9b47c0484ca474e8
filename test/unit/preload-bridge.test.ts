// The preload's method list is the contract's, exactly; and the web guard's rules.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { approverMethods } from '../../main/contract/approver';
import { checkHostAndOrigin, bearerToken, newToken, tokenMatches } from '../../main/api/web-guard';
import { contentSecurityPolicy } from '../../main/api/csp';
import { APPROVER_METHOD_NAMES } from '../../shared/approver-methods';

test('the preload and the renderer build their bridges from exactly the contract methods', () => {
  assert.deepEqual([...APPROVER_METHOD_NAMES].sort(), Object.keys(approverMethods).sort());
});

test('web guard: Host must be our loopback listener, Origin our own', () => {
  assert.deepEqual(checkHostAndOrigin(8123, '127.0.0.1:8123', undefined), { ok: true });
  assert.deepEqual(checkHostAndOrigin(8123, 'localhost:8123', 'http://localhost:8123'), { ok: true });
  assert.equal(checkHostAndOrigin(8123, 'evil.example:8123', undefined).ok, false);
  assert.equal(checkHostAndOrigin(8123, '127.0.0.1:8124', undefined).ok, false);
  assert.equal(checkHostAndOrigin(8123, undefined, undefined).ok, false);
  assert.equal(checkHostAndOrigin(8123, '127.0.0.1:8123', 'http://localhost:8123').ok, false, 'origin must match the host used');
  assert.equal(checkHostAndOrigin(8123, '127.0.0.1:8123', 'null').ok, false);
  assert.equal(checkHostAndOrigin(8123, '127.0.0.1:8123', 'https://127.0.0.1:8123').ok, false);
});

test('web guard: tokens', () => {
  const t = newToken();
  assert.ok(t.length >= 43);
  assert.notEqual(newToken(), t);
  assert.equal(tokenMatches(t, t), true);
  assert.equal(tokenMatches(t, t + 'x'), false);
  assert.equal(tokenMatches(t, ''), false);
  assert.equal(tokenMatches(t, null), false);
  assert.equal(bearerToken(`Bearer ${t}`), t);
  assert.equal(bearerToken(`Basic ${t}`), null);
  assert.equal(bearerToken(undefined), null);
});

test('CSP: nothing inline, nothing remote', () => {
  const csp = contentSecurityPolicy({ connect: ['ws://127.0.0.1:1'] });
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self';/);
  assert.doesNotMatch(csp, /unsafe|\*|https?:/);
  assert.match(csp, /connect-src 'self' ws:\/\/127\.0\.0\.1:1;/);
});
