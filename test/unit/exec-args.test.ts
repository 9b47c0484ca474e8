// What `airlock exec` sends: argv quoted so the classifier (and the human) see exactly the
// words that will run; the MCP proxy's default server label.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildRequest, commandText, shQuote } from '../../main/integrations/exec/exec';
import { defaultServerName } from '../../main/integrations/mcp/proxy';
import { sh, type ShCallExpr } from '../../main/core/classify/sh-ast';
import { wordValue } from '../../main/core/classify/sh-words';

const words = (text: string) => {
  const call = sh().NewParser().Parse(text, 't').Stmts[0]!.Cmd as ShCallExpr;
  return call.Args.map((w) => wordValue(text, w).text);
};

describe('exec argv quoting', () => {
  const argvs = [
    ['rm', '-rf', 'a b', "it's", '"q"', '$HOME', '`x`', '$(y)', 'semi;colon', 'and&&', 'pipe|', 'new\nline', 'back\\slash', '*.txt', '~/x', ''],
    ['git', 'commit', '-m', "fix: don't break \"things\""],
  ];
  for (const argv of argvs) {
    test(JSON.stringify(argv).slice(0, 60), () => {
      const text = commandText({ argv, shell: false });
      assert.deepEqual(words(text), argv.map((a) => a), text);
    });
  }
  test('plain words stay unquoted', () => assert.equal(shQuote('src/a-b_c.ts'), 'src/a-b_c.ts'));
  test('argv mode: a dangerous-looking argument is data, not syntax', () => {
    const { req } = buildRequest({ argv: ['echo', 'x; rm -rf /'], shell: false, cwd: '/repo', sandbox: false, env: {} });
    assert.equal(req.action, 'read');
    const shell = buildRequest({ argv: ['echo x; rm -rf /'], shell: true, cwd: '/repo', sandbox: false, env: {} });
    assert.equal(shell.req.action, 'delete');
  });
  test('the sandbox summary says whether the network will be on', () => {
    // The sandbox never has the network itself: only its task's egress proxy, where one runs.
    const viaProxy = buildRequest({ argv: ['curl', 'https://x.example'], shell: false, cwd: '/r', sandbox: true, env: {} }, true);
    assert.match(viaProxy.req.summary, /^\[sandbox, network through the egress proxy\]/);
    assert.equal(viaProxy.network, true);
    const none = buildRequest({ argv: ['curl', 'https://x.example'], shell: false, cwd: '/r', sandbox: true, env: {} });
    assert.match(none.req.summary, /^\[sandbox, no network\]/);
    assert.equal(none.network, false);
    assert.doesNotMatch(buildRequest({ argv: ['make'], shell: false, cwd: '/r', sandbox: false, env: {} }).req.summary, /sandbox/);
  });
});

describe('MCP server label', () => {
  test('from the command, skipping runners and flags', () => {
    assert.equal(defaultServerName(['npx', '-y', '@modelcontextprotocol/server-filesystem', '/work']), 'server-filesystem');
    assert.equal(defaultServerName(['uvx', 'mcp-server-git@1.2.0']), 'mcp-server-git');
    assert.equal(defaultServerName(['node', 'dist/index.js']), 'index');
    assert.equal(defaultServerName(['/usr/local/bin/my server']), 'my_server');
    assert.equal(defaultServerName([]), 'mcp');
  });
});
