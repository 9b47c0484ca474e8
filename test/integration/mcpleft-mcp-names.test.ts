// `airlock mcp`: names a server chose, judged like the paths they may stand for. A prompt whose
// name is a path or a file: URI (`prompts/get {name: "/…/secret/key"}`: a server serving
// prompts from files opens it) and a resource URI of the server's own scheme naming an
// absolute path (`res:///…/secret/key`: a server may map its scheme onto the file system) were
// judged as `mcp:SERVER:…` only, so a deny grant on the directory did not reach them. (Helper
// mcpleft wrote the fix and this test; its control expected a plain prompt name to be asked,
// but prompts/get is a read, which the default policy allows: the lead fixed the control.)
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pendingList } from '../helpers/blackbox';
import { waitFor } from '../helpers/daemon';
import { mcpBlackbox } from '../helpers/mcp-blackbox';
import { PuppetProxy } from '../helpers/mcp-puppet';

const s = mcpBlackbox('mcpleft-n-', 'srv-');

describe('prompt names and resource URIs that name a path', () => {
  test('a deny on a directory denies prompts/get of a prompt named by a path or file: URI in it, and resources/read of res:///that/path; none reaches the server; a plain prompt name is a read the default policy allows', async () => {
    const x = await PuppetProxy.start(s.d.env, 'mlnames', s.dir);
    try {
      await x.init([]);
      const secret = `${s.dir}/secret/key`;
      await s.ui.ok('grants.create', { source: 'mcp', tool: 'mlnames/*', action: '*', resource: `${s.dir}/secret/**`, effect: 'deny', note: 'mcpleft: no secrets through prompt names' });
      const asks: [string, string, object][] = [
        ['n-path', 'prompts/get', { name: secret }],
        ['n-uri', 'prompts/get', { name: `file://${secret}` }],
        ['n-rel', 'prompts/get', { name: 'secret/key' }],
        ['n-res', 'resources/read', { uri: `res://${secret}` }],
        ['n-res-escaped', 'resources/read', { uri: `notes:${secret.replace('secret', '%73ecret')}` }],
      ];
      for (const [id, method, params] of asks) x.send({ jsonrpc: '2.0', id, method, params });
      for (const [id] of asks) {
        const a = await x.answer(id);
        assert.equal(a.error?.code, -32003, `${id}: ${JSON.stringify(a)}`);
        assert.match(a.error?.message ?? '', /Denied by Airlock: denied by grant/, id);
      }
      assert.ok(!x.server.flat().some((m) => typeof m.id === 'string' && m.id.startsWith('n-')), 'none reached the server');
      // Control: a prompt with a plain name is a read of the server's own prompt, allowed by
      // the default read policy, and reaches the server.
      x.send({ jsonrpc: '2.0', id: 'plain', method: 'prompts/get', params: { name: 'code_review' } });
      await waitFor(() => x.server.flat().some((m) => m.id === 'plain'), 'the plain prompts/get to reach the server', 20_000);
      assert.deepEqual((await pendingList(s.ui)).filter((q) => q.tool.startsWith('mlnames/')), []);
    } finally {
      await x.close();
    }
  });
});
