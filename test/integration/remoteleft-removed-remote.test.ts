// A remote removed while its ssh session stays open: the server still holds the forwarded
// agent (the `ForwardAgent=…/agent.sock` of the printed line). Nothing it asks through it is
// answered any more — not a signature, and not the list of this machine's keys — and each
// refusal is recorded with the remote. Real loopback sshd; OpenSSH's ssh-add on the server.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { HistoryEvent } from '../../main/contract/approver';
import type { RpcClient } from '../../main/client/rpc-client';
import { CLI, startDaemon, tempHome, waitFor, type Daemon } from '../helpers/daemon';
import { run, type RunResult } from '../helpers/ssh';
import { sshArgs, startSshdForClient, type Sshd } from '../helpers/sshd';

let d: Daemon;
let home: string;
let ui: RpcClient;
let sshd: Sshd | undefined;
let skip: string | undefined;
let clientKey = '';
let knownHosts = '';
let workFp = '';

before(async () => {
  home = tempHome('rlrm-');
  d = await startDaemon({ home: path.join(home, 'h'), env: { HOME: home } });
  ui = await d.ui();
  if (!fs.existsSync('/usr/sbin/sshd')) {
    skip = 'OpenSSH server not installed (scripts/install-system-deps.sh)';
    return;
  }
  ({ sshd, clientKey, knownHosts } = await startSshdForClient(path.join(home, 'sshd'), home));
  const { key } = await ui.call<{ key: { fingerprint: string } }>('keys.generate', { type: 'ed25519', name: 'work' });
  workFp = key.fingerprint;
});
after(async () => {
  ui?.close();
  await sshd?.stop();
  await d?.stop();
  fs.rmSync(home, { recursive: true, force: true });
});

const airlock = (args: string[]) => run(process.execPath, [CLI, ...args], { env: d.env, timeoutMs: 30_000 });

test('a removed remote\'s still-open session cannot list this machine\'s keys through its forwarded agent: refused, recorded with the remote', async (t) => {
  if (skip) return t.skip(skip);
  const add = await airlock(['remote', 'add', 'gone', 'ci@build.example', '--json']);
  assert.equal(add.code, 0, add.stderr);
  const plan = JSON.parse(add.stdout) as { sshOptions: string[] };
  const go = path.join(home, 'removed');
  const listed = path.join(home, 'listed');
  // On the server (this same machine, so it can leave a mark here): list the keys, wait until
  // the remote is removed here, list them again in both forms. Sections are split by "=== ".
  const script = `echo "=== before"; ssh-add -l; echo "exit=$?"; touch ${listed}; for i in $(seq 600); do [ -e ${go} ] && break; sleep 0.1; done; echo "=== after"; ssh-add -l; echo "exit=$?"; ssh-add -L; echo "exit=$?"`;
  const args = sshArgs(sshd!, knownHosts, ['-i', clientKey, '-o', 'IdentitiesOnly=yes', ...plan.sshOptions]);
  let ended: RunResult | undefined;
  const session = run('ssh', [...args, script], { env: { ...process.env, HOME: home, SSH_AUTH_SOCK: d.agentSock }, timeoutMs: 90_000 });
  void session.then((r) => (ended = r));
  try {
    await waitFor(() => ended !== undefined || fs.existsSync(listed), 'the first list through the forward', 30_000, 50);
    assert.equal(ended, undefined, `the session ended early: ${ended?.stdout}${ended?.stderr}`);
    const since = Date.now();
    assert.equal((await airlock(['remote', 'remove', 'gone'])).code, 0);
    fs.writeFileSync(go, '');
    const r = await session;
    const [, first = '', second = ''] = r.stdout.split('=== ');
    assert.ok(first.includes(workFp) && /exit=0/.test(first), `while the remote was there its key was listed: ${r.stdout}${r.stderr}`);
    assert.ok(!second.includes(workFp) && !second.includes('ssh-ed25519 '), `after the removal no key is listed: ${second}${r.stderr}`);
    assert.deepEqual(second.match(/exit=\d+/g), ['exit=1', 'exit=1'], `ssh-add -l and -L fail: ${second}${r.stderr}`);
    const { events } = await ui.call<{ events: HistoryEvent[] }>('history.query', { source: 'ssh', decision: 'reject', since, limit: 20 });
    const refused = events.filter((e) => /key list through the forwarded agent of removed remote gone refused/.test(e.summary));
    assert.equal(refused.length, 2, `each list is refused and recorded: ${events.map((e) => e.summary).join(' | ')}`);
    for (const e of refused) assert.equal(e.remote?.name, 'gone', 'recorded with the remote');
  } finally {
    fs.writeFileSync(go, '');
    await session;
  }
});
