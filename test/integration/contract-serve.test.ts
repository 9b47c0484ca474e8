// README "The daemon": `airlock serve` runs in the foreground and Ctrl-C stops it, "open
// prompts are denied and recorded". Black-box: a requester waits on a prompt over a raw
// socket, the daemon gets SIGINT (and, in a second run, SIGTERM); the requester hears
// "deny" before the socket closes, serve exits 0, and history (read without the daemon)
// holds the deny, decided by the system, with an intact chain.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { after, test } from 'node:test';
import { CLI, tempHome, waitFor } from '../helpers/daemon';

const homes: string[] = [];

/** pending.list over ui.sock, one connection per call. */
function pendingSummaries(uiSock: string): Promise<string[]> {
  return new Promise((resolve) => {
    const s = net.createConnection(uiSock, () => s.write('{"jsonrpc":"2.0","id":1,"method":"pending.list"}\n'));
    let buf = '';
    s.on('data', (b) => {
      buf += b;
      if (!buf.includes('\n')) return;
      s.destroy();
      const r = JSON.parse(buf.split('\n')[0]!) as { result?: { prompts: { summary: string }[] } };
      resolve((r.result?.prompts ?? []).map((p) => p.summary));
    });
    s.on('error', () => resolve([]));
  });
}
after(() => {
  for (const h of homes) fs.rmSync(h, { recursive: true, force: true });
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  test(`${signal}: a requester waiting on a prompt is answered "deny", serve exits 0, history has it`, async () => {
    const home = tempHome('alsv-');
    homes.push(home);
    const env: NodeJS.ProcessEnv = { ...process.env, AIRLOCK_HOME: home };
    delete env.SSH_AUTH_SOCK;
    const serve = spawn(process.execPath, [CLI, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    serve.stdout.on('data', (b) => (out += b));
    serve.stderr.on('data', (b) => (out += b));
    const exited = new Promise<number | null>((r) => serve.once('exit', (c) => r(c)));
    try {
      await waitFor(() => /ready/.test(out), `serve to be ready:\n${out}`, 20_000);
      const summary = `contract: pending at ${signal}`;
      const sock = net.createConnection(`${home}/request.sock`);
      let got = '';
      let closed = false;
      sock.on('data', (b) => (got += b));
      sock.on('close', () => (closed = true));
      sock.on('error', () => undefined);
      sock.write(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'request', params: { source: 'api', tool: 'fs.write', action: 'write', resource: `${home}/x`, summary } }) + '\n');
      // The prompt is open (the human side sees it), then the daemon is stopped.
      await waitFor(async () => (await pendingSummaries(`${home}/ui.sock`)).includes(summary), 'the prompt to be open', 30_000, 100);
      serve.kill(signal);
      assert.equal(await exited, 0, out);
      assert.match(out, new RegExp(`${signal}, stopping \\(open prompts are denied and recorded\\)`));
      await waitFor(() => closed, 'the socket to close', 20_000);
      const answer = JSON.parse(got.split('\n')[0]!) as { id: number; result?: { decision: string; reason: string; event: number } };
      assert.equal(answer.id, 7, got);
      assert.equal(answer.result?.decision, 'deny', got);
      assert.match(answer.result!.reason, /Airlock stopped/);
      assert.ok(answer.result!.event > 0, 'the answer names the recorded event');

      const h = spawnSync(process.execPath, [CLI, 'history', '--json'], { env, encoding: 'utf8' });
      assert.equal(h.status, 0, h.stderr);
      const ev = h.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { id: number; summary: string; decision: string; decidedBy: string })
        .find((e) => e.summary === summary);
      assert.ok(ev, 'the request is in history');
      assert.deepEqual({ id: ev.id, decision: ev.decision, decidedBy: ev.decidedBy }, { id: answer.result!.event, decision: 'deny', decidedBy: 'system' });
      const v = spawnSync(process.execPath, [CLI, 'audit', 'verify'], { env, encoding: 'utf8' });
      assert.equal(v.status, 0, v.stderr + v.stdout);
    } finally {
      if (serve.exitCode === null && serve.signalCode === null) serve.kill('SIGKILL');
    }
  });
}
