// A grant condition on a path, end to end: the real @modelcontextprotocol/server-filesystem
// behind `airlock mcp`, a task grant "write_file only when args.path is under pub/", and an
// agent that writes `pub/../private.txt` (which starts with pub/ and is not under it). It asks
// now, and a denied write leaves no file. main/core/condition-paths.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, REPO, startDaemon, type Daemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import type { RpcClient } from '../../main/client/rpc-client';

const FS_SERVER = path.join(REPO, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');

let d: Daemon;
let ui: RpcClient;
let human: Human;

before(async () => {
  d = await startDaemon();
  ui = await d.ui();
  human = await Human.on(ui);
});
after(async () => {
  ui?.close();
  await d?.stop();
});

const text = (r: unknown) => ((r as { content: { text: string }[] }).content ?? []).map((c) => c.text).join('\n');

describe('a --when condition on args.path against dot segments', () => {
  test('write_file of pub/../private.txt under "only when args.path starts with pub/" asks; denied, nothing is written', async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(d.home, 'files-')));
    const pub = path.join(root, 'pub');
    fs.mkdirSync(pub);
    const agent = await d.agent();
    const { task, token } = await agent.call<{ task: string; token: string }>('task.start', { name: 'publish notes' });
    agent.close();
    await ui.call('grants.create', {
      task, source: 'mcp', tool: 'files/write_file', action: 'write', effect: 'allow', when: `args.path.startsWith("${pub}/")`, note: 'writes in pub/ only',
    });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--name', 'files', '--task', token, '--', process.execPath, FS_SERVER, root],
      env: d.env as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'condition-paths', version: '1.0.0' });
    await client.connect(transport);
    try {
      // control: a write in pub/ is the grant's, without a prompt
      const ok = await client.callTool({ name: 'write_file', arguments: { path: `${pub}/a.txt`, content: 'a' } });
      assert.notEqual(ok.isError, true, text(ok));
      assert.equal(fs.readFileSync(path.join(pub, 'a.txt'), 'utf8'), 'a');
      assert.deepEqual(human.unanswered(), []);
      // the walk-around: starts with pub/, lands beside it
      const call = client.callTool({ name: 'write_file', arguments: { path: `${pub}/../private.txt`, content: 'pwned' } });
      const p = await human.next();
      assert.equal(p.tool, 'files/write_file');
      await human.decide(p.id, 'deny');
      const denied = await call;
      assert.equal(denied.isError, true, text(denied));
      assert.equal(fs.existsSync(path.join(root, 'private.txt')), false, 'the server never wrote private.txt');
    } finally {
      await client.close();
    }
  });
});
