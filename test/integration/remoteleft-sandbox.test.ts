// `--ro PATH` of the host's kernel trees and of the home directory, as an agent's wrapper
// (or a careless line) would pass them: the sandbox has its own /proc (its pid namespace)
// and /dev, and a read-only bind of the host's lays them over those. Through the host's
// /proc every process's command line is readable (another task's `airlock exec --task
// TOKEN`; the line the human typed), and where bwrap gets no user namespace `/proc/PID/root`
// leads to the real, writable files. Refused (64) before anything is asked or run.
// Real daemon, real bwrap.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { airlock, closeBlackboxSession, openBlackboxSession, pendingList, type BlackboxSession } from '../helpers/blackbox';

let s: BlackboxSession;
let proj: string;
const hasBwrap = fs.existsSync('/usr/bin/bwrap') || fs.existsSync('/bin/bwrap');

before(async () => {
  s = await openBlackboxSession('rlsb-');
  proj = path.join(s.root, 'proj');
  fs.mkdirSync(proj);
});
after(() => closeBlackboxSession(s));

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ ...process.env, AIRLOCK_HOME: s.d.home, ...extra });

test('--ro of the host\'s /proc, /dev or /sys (or a path inside them or holding them, / included), or of a directory holding the home, is refused before anything is asked or run', { skip: !hasBwrap && 'bwrap is not installed' }, async () => {
  // Outside, a process whose command line holds a secret (as `airlock exec --task TOKEN` does).
  const secret = `rl-secret-${process.pid}-${Date.now()}`;
  const holder = spawn('sh', ['-c', `sleep 120; : ${secret}`], { stdio: 'ignore' });
  const home = path.join(s.root, 'home');
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
  fs.writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY\n');
  try {
    const cases: [string, RegExp][] = [
      ['/proc', /--ro \/proc is inside \/proc, the host's processes/],
      ['/dev', /--ro \/dev is inside \/dev, the host's devices/],
      ['/dev/shm', /--ro \/dev\/shm is inside \/dev/],
      ['/sys', /--ro \/sys is inside \/sys/],
      ['/', /--ro \/ holds \/proc/],
      [home, /holds your home directory/],
    ];
    for (const [ro, why] of cases) {
      const out = path.join(proj, 'ran');
      // What an agent would do with it: find the secret in the host's command lines, read the key.
      const line = `grep -l ${secret} /proc/[0-9]*/cmdline > '${out}' 2>/dev/null; cat '${home}/.ssh/id_ed25519' >> '${out}' 2>/dev/null; ls /dev >> '${out}'`;
      const running = airlock(['exec', '--sandbox', '--ro', ro, '--', 'sh', '-c', line], { env: env({ HOME: home }), cwd: proj, timeoutMs: 60_000 });
      // A human who approves whatever is asked: the refusal must come before any prompt.
      let done = false;
      void running.finally(() => (done = true));
      const asked: string[] = [];
      while (!done) {
        for (const p of await pendingList(s.ui)) {
          asked.push(p.summary);
          await s.ui.call('pending.decide', { id: p.id, decision: 'allow', scope: 'once' });
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      const r = await running;
      const leaked = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '';
      fs.rmSync(out, { force: true });
      assert.equal(r.code, 64, `--ro ${ro} ran (exit ${r.code}); what it saw:\n${leaked.slice(0, 400)}\n${r.stderr}`);
      assert.match(r.stderr, why);
      assert.match(r.stderr, /nothing was run/);
      assert.deepEqual(asked, [], 'nothing was asked');
      assert.equal(leaked, '', 'nothing ran');
    }
    // Control: the sandbox's own /proc and /dev still work, and a project directory can be shared.
    const shared = path.join(s.root, 'notes');
    fs.mkdirSync(shared);
    fs.writeFileSync(path.join(shared, 'a.txt'), 'notes\n');
    const ok = airlock(['exec', '--sandbox', '--ro', shared, '--', 'sh', '-c', `cat '${shared}/a.txt'; grep -l ${secret} /proc/[0-9]*/cmdline; echo x > /dev/null && echo null-ok`], { env: env({ HOME: home }), cwd: proj, timeoutMs: 60_000 });
    let done = false;
    void ok.finally(() => (done = true));
    while (!done) {
      for (const p of await pendingList(s.ui)) await s.ui.call('pending.decide', { id: p.id, decision: 'allow', scope: 'once' });
      await new Promise((r) => setTimeout(r, 100));
    }
    const r = await ok;
    assert.match(r.stdout, /notes\n/, r.stdout + r.stderr);
    assert.match(r.stdout, /null-ok/);
    assert.doesNotMatch(r.stdout, new RegExp(secret), 'the sandbox\'s own /proc shows only its own processes');
  } finally {
    holder.kill('SIGKILL');
  }
});
