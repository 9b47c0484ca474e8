// Which headers the egress proxy treats as hop-by-hop (main/integrations/egress/hop-headers.ts):
// the standard set and every Connection option, in any spelling; Host and Content-Length can
// never be made hop-by-hop by a request. The proxy's use of it: test/integration/egress-connection-headers.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_CONNECTION_OPTIONS, requestHopHeaders, responseHopHeaders } from '../../main/integrations/egress/hop-headers';

const dropOf = (raw: string[], request = true) => {
  if (!request) return responseHopHeaders(raw);
  const h = requestHopHeaders(raw);
  assert.ok('drop' in h, JSON.stringify(h));
  return h.drop;
};

test('hop-by-hop: the standard set, and every Connection or Proxy-Connection option in any case, spacing or line', () => {
  const drop = dropOf(['Host', 'a', 'Connection', ' keep-alive ,X-Foo,, ', 'connection', 'AUTHORIZATION', 'Proxy-Connection', 'x-bar', 'X-Keep', '1']);
  for (const h of ['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'x-foo', 'authorization', 'x-bar']) assert.equal(drop(h), true, h);
  for (const h of ['host', 'x-keep', 'content-length', 'accept', 'x-fo']) assert.equal(drop(h), false, h);
  // Without a Connection header only the standard set.
  assert.equal(dropOf(['Authorization', 'x'])('authorization'), false);
});

test('a request may not name Host or Content-Length as a connection option, nor more than the cap; a response keeps them', () => {
  for (const v of ['host', ' Host ', 'close, content-length', 'CONTENT-LENGTH']) {
    const h = requestHopHeaders(['Connection', v]);
    assert.ok('refused' in h, v);
    const r = dropOf(['Connection', v], false);
    assert.equal(r('host') || r('content-length'), false, v);
  }
  const many = Array.from({ length: MAX_CONNECTION_OPTIONS + 1 }, (_, i) => `x-${i}`).join(',');
  assert.ok('refused' in requestHopHeaders(['Connection', many]));
  assert.equal(dropOf(['Connection', many], false)('x-0'), true);
  assert.ok('drop' in requestHopHeaders(['Connection', Array.from({ length: MAX_CONNECTION_OPTIONS }, (_, i) => `x-${i}`).join(',')]));
});
