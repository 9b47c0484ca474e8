// Black-box, ninth wave: stretching a path grant or slipping past a path deny with another
// spelling of the same place — `~/`, `$HOME`, `cd` alone, `~user`, `~+`, `~-`, `cd -`,
// `pushd +N` — through the real daemon, `airlock exec --shell` (a real /bin/sh, with HOME set
// to a temporary directory so `~` really expands there) and `airlock mcp` in front of the real
// @modelcontextprotocol/server-filesystem (which expands `~/` itself).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { REPO, startDaemon, waitFor, type Daemon } from '../helpers/daemon';
import { AIRLOCK_BIN, Wire, airlock, pendingList, type RpcMsg } from '../helpers/blackbox';

let root: string;
let home: string;
let proj: string;
let d: Daemon;
let ui: Wire;
let agent: Wire;
let env: NodeJS.ProcessEnv;

before(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'bb9p-')));
  home = path.join(root, 'home');
  proj = path.join(home, 'proj');
  fs.mkdirSync(path.join(home, 'mail'), { recursive: true });
  fs.mkdirSync(proj, { recursive: true });
  // The daemon and every client run with this HOME: `~` means it for the shell, the MCP server and Airlock alike.
  d = await startDaemon({ home: path.join(root, 'h'), env: { HOME: home } });
  env = { ...d.env, HOME: home };
  ui = await Wire.open(d.uiSock);
  agent = await Wire.open(d.requestSock);
});
after(async () => {
  agent?.close();
  ui?.close();
  await d?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

interface Answer {
  decision: string;
  reason: string;
}

/** Sends a request; a prompt for it is denied and reported as 'asked'. */
async function outcome(params: Record<string, unknown>): Promise<'asked' | Answer> {
  const pending = agent.call('request', params, 60_000);
  let asked = false;
  const settled = await Promise.race([pending.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 2000))]);
  if (!settled) {
    await waitFor(async () => (await pendingList(ui)).length > 0, 'a prompt', 20_000);
    for (const p of await pendingList(ui)) await ui.ok('pending.decide', { id: p.id, decision: 'deny', scope: 'once' });
    asked = true;
  }
  const m: RpcMsg = await pending;
  assert.equal(m.error, undefined, JSON.stringify(m));
  return asked ? 'asked' : (m.result as unknown as Answer);
}

describe('a deny on a directory holds however the home directory is spelled', () => {
  let allow: string;
  let deny: string;
  before(async () => {
    // "exec may write anything, but never in my mail" — the deny must win over every spelling.
    allow = (await ui.ok<{ grant: { id: string } }>('grants.create', { source: 'exec', action: 'write', resource: '**', effect: 'allow', note: 'bb9 exec writes' })).grant.id;
    deny = (await ui.ok<{ grant: { id: string } }>('grants.create', { action: ['write', 'delete'], resource: `${home}/mail/**`, effect: 'deny', note: 'never my mail' })).grant.id;
  });
  after(async () => {
    await ui.ok('grants.revoke', { id: allow });
    await ui.ok('grants.revoke', { id: deny });
  });

  test('airlock exec: echo > ~/mail/x, $HOME/mail/x, "${HOME}/mail/x", cd alone then mail/x, cd ~/mail then x are denied by a deny on $HOME/mail/** and nothing is written', async () => {
    const cmds = ['echo pwned > ~/mail/a', 'echo pwned > $HOME/mail/b', 'echo pwned > "${HOME}/mail/c"', 'cd; echo pwned > mail/d', 'cd ~/mail && echo pwned > e', 'tee ~/mail/f </dev/null', 'rm -rf ~/mail'];
    // control: the allow answers a write elsewhere, so the daemon and grants are working
    const ok = await airlock(['exec', '--shell', '--', `echo fine > ${proj}/ok.txt`], { env, cwd: proj });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(fs.readFileSync(path.join(proj, 'ok.txt'), 'utf8'), 'fine\n');
    for (const c of cmds) {
      const r = await airlock(['exec', '--shell', '--', c], { env, cwd: proj });
      assert.equal(r.code, 126, `${c}: exit ${r.code}, stderr ${r.stderr}`);
      assert.match(r.stderr, /never my mail/, `${c}: denied by the mail deny`);
    }
    assert.deepEqual(fs.readdirSync(path.join(home, 'mail')), [], 'nothing was written in ~/mail');
  });

  test('a deny written as ~/mail2/** reaches ~/mail2/x as well as the absolute path', async () => {
    const g = (await ui.ok<{ grant: { id: string } }>('grants.create', { action: 'write', resource: '~/mail2/**', effect: 'deny', note: 'never mail2' })).grant.id;
    try {
      for (const c of ['echo x > ~/mail2/x', `echo x > ${home}/mail2/x`]) {
        const a = await outcome({ source: 'exec', tool: 'exec', action: 'write', summary: c, args: { command: c }, cwd: proj });
        assert.notEqual(a, 'asked', c);
        assert.equal((a as Answer).decision, 'deny', `${c}: ${JSON.stringify(a)}`);
        assert.match((a as Answer).reason, /never mail2/);
      }
    } finally {
      await ui.ok('grants.revoke', { id: g });
    }
  });
});

describe('airlock mcp in front of server-filesystem: write_file of ~/mail/x', () => {
  test('a deny on $HOME/mail/** denies write_file {path: "~/mail/x"} (the server expands ~) and the file is not written', async () => {
    const allow = (await ui.ok<{ grant: { id: string } }>('grants.create', { source: 'mcp', tool: 'files/*', action: 'write', resource: '**', effect: 'allow', note: 'bb9 mcp writes' })).grant.id;
    const deny = (await ui.ok<{ grant: { id: string } }>('grants.create', { action: ['write', 'delete'], resource: `${home}/mail/**`, effect: 'deny', note: 'never my mail (mcp)' })).grant.id;
    const server = path.join(REPO, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');
    const p: ChildProcess = spawn(process.execPath, [AIRLOCK_BIN, 'mcp', '--name', 'files', '--', process.execPath, server, home], { env, cwd: proj, stdio: ['pipe', 'pipe', 'pipe'] });
    const lines: { id?: unknown; result?: { isError?: boolean; content?: { text?: string }[] } }[] = [];
    let buf = '';
    let err = '';
    p.stdout!.on('data', (x: Buffer) => {
      buf += x.toString();
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const l = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (l.trim()) lines.push(JSON.parse(l) as (typeof lines)[number]);
      }
    });
    p.stderr!.on('data', (x: Buffer) => (err += x.toString()));
    const send = (o: object) => p.stdin!.write(JSON.stringify({ jsonrpc: '2.0', ...o }) + '\n');
    const reply = async (id: string) => {
      await waitFor(() => lines.some((l) => l.id === id), `the answer to ${id}; stderr: ${err}`, 30_000);
      return lines.find((l) => l.id === id)!;
    };
    try {
      send({ id: 'i', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bb9', version: '1' } } });
      await reply('i');
      send({ method: 'notifications/initialized' });
      send({ id: 'l', method: 'tools/list' });
      await reply('l');
      // control: a write elsewhere under the allow goes through
      send({ id: 'ok', method: 'tools/call', params: { name: 'write_file', arguments: { path: path.join(proj, 'fine.txt'), content: 'fine' } } });
      const ok = await reply('ok');
      assert.notEqual(ok.result?.isError, true, JSON.stringify(ok));
      assert.equal(fs.readFileSync(path.join(proj, 'fine.txt'), 'utf8'), 'fine');
      send({ id: 'w', method: 'tools/call', params: { name: 'write_file', arguments: { path: '~/mail/stolen.txt', content: 'pwned' } } });
      const w = await reply('w');
      assert.equal(w.result?.isError, true, JSON.stringify(w));
      assert.match(w.result?.content?.map((c) => c.text).join('') ?? '', /Denied by Airlock: .*never my mail \(mcp\)/);
      assert.equal(fs.existsSync(path.join(home, 'mail', 'stolen.txt')), false, 'the server never wrote ~/mail/stolen.txt');
    } finally {
      p.kill('SIGKILL');
      await ui.ok('grants.revoke', { id: allow });
      await ui.ok('grants.revoke', { id: deny });
    }
  });
});

describe("a task's grant on its directory does not reach bash's other tilde words", () => {
  test('~user/…, ~-/…, cd - and pushd +1 are not read as under the working directory: each asks despite a grant on the task directory', async () => {
    const t = await agent.ok<{ task: string; token: string }>('task.start', { name: 'bb9 tilde', cwd: proj });
    await ui.ok('grants.create', { task: t.task, source: 'exec', action: 'write', resource: `${proj}/**`, effect: 'allow', note: 'task dir' });
    const me = os.userInfo().username;
    const ask = (c: string) => outcome({ source: 'exec', tool: 'exec', action: 'write', summary: c, args: { command: c }, cwd: proj, task: t.token });
    // control: a write in the task's directory is the grant's
    const ctl = await ask('echo x > notes.txt');
    assert.notEqual(ctl, 'asked');
    assert.equal((ctl as Answer).decision, 'allow');
    const cases = [
      `echo x > ~${me}/bb9-never`, // that user's home, not $PWD/~user
      `cd ~${me} && echo x > bb9-never`,
      'cd /etc; cd ' + proj + '; echo x > ~-/bb9-never', // ~- is OLDPWD (/etc)
      'cd /etc; cd ' + proj + '; cd -; echo x > bb9-never', // cd - goes back to /etc
      'pushd /etc; pushd ' + proj + '; pushd +1; echo x > bb9-never', // pushd +1 rotates to /etc
      'echo x > ~+/../bb9-never', // ~+ is $PWD: this is the task directory's parent
    ];
    for (const c of cases) assert.equal(await ask(c), 'asked', `${c} must ask`);
    await agent.ok('task.end', { task: t.token });
  });
});
