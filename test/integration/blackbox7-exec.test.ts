// Black-box, seventh wave: `airlock exec` as sudo for agents, at its edges. `--timeout` says
// "kill the command after this many seconds (exit 124)" (its help then) and prints "the command was
// stopped": that must hold for what the command started too, as it does for coreutils'
// timeout. An empty command name is a usage error (64) decided before a human is bothered
// with it, never a prompt about nothing followed by an exit code that reads as a denial.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { after, before, test } from 'node:test';
import { AIRLOCK_BIN, airlock, closeBlackboxSession, openBlackboxSession, pendingList, waitPending, type BlackboxSession, type Run } from '../helpers/blackbox';
import { waitFor } from '../helpers/daemon';

let s: BlackboxSession;
before(async () => {
  s = await openBlackboxSession('bb7e-');
});
after(() => closeBlackboxSession(s));

const env = (): NodeJS.ProcessEnv => ({ ...process.env, AIRLOCK_HOME: s.d.home });

/** Pids whose command line holds `needle` (Linux /proc), for finding what a command left behind. */
function pidsWith(needle: string): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ');
      const state = /\) (\S)/.exec(fs.readFileSync(`/proc/${name}/stat`, 'utf8'))?.[1];
      if (argv.includes(needle) && state !== 'Z') out.push(Number(name));
    } catch {
      /* gone */
    }
  }
  return out;
}

/** Runs `airlock exec ARGS`; answers its prompt "allow once" when `summaryPart` shows up (null: a read, nothing asked). */
function execAllowed(args: string[], summaryPart: string | null): Promise<Run> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [AIRLOCK_BIN, 'exec', ...args], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d.toString()));
    p.stderr.on('data', (d) => (stderr += d.toString()));
    const t = setTimeout(() => p.kill('SIGKILL'), 60_000);
    // 'exit', not 'close': what the command left running may hold our pipes open for ever.
    p.on('exit', (code, signal) => (clearTimeout(t), setTimeout(() => resolve({ code, signal, stdout, stderr }), 100)));
    if (summaryPart === null) return;
    waitPending(s.ui, (x) => x.summary.includes(summaryPart), `the prompt for ${summaryPart}`)
      .then((pr) => s.ui.ok('pending.decide', { id: pr.id, decision: 'allow', scope: 'once' }))
      .catch(reject);
  });
}

test('--timeout stops what the command started too: a background child that ignores SIGTERM is gone when exec exits 124', { skip: !fs.existsSync('/proc/self/stat') }, async () => {
  const tag = `.${process.pid}7`;
  // The child shell ignores SIGTERM and so does its background child (then SIGHUP too).
  const r = await execAllowed(['--timeout', '1', '--', 'sh', '-c', `(trap "" TERM HUP; exec sleep 31${tag}) & trap "" TERM; sleep 30${tag}`], `sleep 30${tag}`);
  assert.equal(r.code, 124, r.stderr);
  assert.match(r.stderr, /timed out after 1 s; the command was stopped/);
  // exec has exited: nothing it started may still run (allow a moment for the kernel to reap).
  await waitFor(() => pidsWith(`sleep 31${tag}`).length === 0 && pidsWith(`sleep 30${tag}`).length === 0, 'nothing of the command left running', 3000).catch(() => undefined);
  const left = [...pidsWith(`sleep 31${tag}`), ...pidsWith(`sleep 30${tag}`)];
  for (const pid of left) process.kill(pid, 'SIGKILL');
  assert.deepEqual(left, [], `"the command was stopped", but these still ran after exec exited: ${left.join(', ')}`);
});

test('--timeout with a command that stops at SIGTERM exits 124 at once, not after the grace period', async () => {
  const tag = `.${process.pid}5`;
  // sleep and wait are reads: allowed by the default policy, no prompt.
  // The same path without a timeout (start-up, the decision, 1 s of sleep) measured just before:
  // on a loaded machine start-up alone can take seconds, so only the difference says whether
  // the 5 s SIGKILL grace was waited out.
  const base0 = Date.now();
  const b = await execAllowed(['--', 'sh', '-c', 'sleep 1'], null);
  assert.equal(b.code, 0, b.stderr);
  const baseline = Date.now() - base0;
  const started = Date.now();
  const r = await execAllowed(['--timeout', '1', '--', 'sh', '-c', `sleep 30${tag} & sleep 31${tag}; wait`], null);
  const took = Date.now() - started - baseline;
  assert.equal(r.code, 124, r.stderr);
  const left = [...pidsWith(`sleep 30${tag}`), ...pidsWith(`sleep 31${tag}`)];
  for (const pid of left) process.kill(pid, 'SIGKILL');
  assert.deepEqual(left, [], 'the background sleep went with it');
  // 1 s of timeout, then everything went at SIGTERM: the 5 s SIGKILL grace was not waited out.
  assert.ok(took < 3500, `exec took ${took} ms more than the same path without a timeout (${baseline} ms)`);
});

test('an empty command name is a usage error (64) decided before anything is asked: exec -- "" (it was a prompt, then 126 as if denied)', async () => {
  const count = async (): Promise<number> => {
    const h = await airlock(['history', '--json', '--source', 'exec', '--limit', '1000'], { env: env() });
    assert.equal(h.code, 0, h.stderr);
    return h.stdout.split('\n').filter((l) => l.trim()).length;
  };
  const before = await count();
  const cases: { args: string[]; input?: string }[] = [{ args: ['exec', '--', ''] }, { args: ['exec', '--', '', 'x'] }, { args: ['exec', '--sandbox', '--', ''] }];
  for (const c of cases) {
    const r = await airlock(c.args, { env: env(), input: c.input, timeoutMs: 20_000 });
    assert.equal(r.code, 64, `${JSON.stringify(c)}: ${r.stdout}${r.stderr}`);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, /no command/, lines[0]);
    assert.deepEqual(await pendingList(s.ui), [], `${JSON.stringify(c)}: nothing was asked`);
  }
  assert.equal(await count(), before, 'no exec request was made');
});
