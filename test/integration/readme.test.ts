// The README is true (issue 12): its shell examples are run — here, verbatim against a
// real daemon, or by the test named for them below — and a new example that neither runs
// here nor names its test fails this file. Placeholders the README uses for ids
// (g_xxxxxxxx, t_xxx) are replaced by real ones; nothing else is changed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import type { Prompt } from '../../main/contract/approver';
import type { RpcClient } from '../../main/client/rpc-client';
import { CLI, REPO, startDaemon, tempHome, waitFor, type Daemon } from '../helpers/daemon';

const README = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');

/** Every ```sh block: its lines, continuation lines joined, comment-only lines dropped. */
function shBlocks(md: string): string[][] {
  const blocks: string[][] = [];
  const re = /^```sh\n([\s\S]*?)^```/gm;
  for (let m = re.exec(md); m; m = re.exec(md)) {
    const lines: string[] = [];
    let acc = '';
    for (const raw of m[1]!.split('\n')) {
      if (acc === '' && (/^\s*#/.test(raw) || raw.trim() === '')) continue;
      acc += raw;
      // A continued line stays continued (bash reads `\` + newline as one line).
      if (/\\$/.test(raw)) {
        acc += '\n';
        continue;
      }
      lines.push(acc);
      acc = '';
    }
    blocks.push(lines);
  }
  return blocks;
}
const command = (line: string) => line.replace(/\s+#\s.*$/, '').trim();
const BLOCKS = shBlocks(README);
/** The README block whose first line contains `anchor`, as one script. */
function block(anchor: string): string {
  const b = BLOCKS.find((x) => x.some((l) => l.includes(anchor)));
  assert.ok(b, `README has no sh block with ${anchor}`);
  return b.join('\n');
}

/** Examples run by another test: a pattern of the line → the test file that runs it. */
const ELSEWHERE: [RegExp, string][] = [
  [/^npm install && npm start$/, 'test/integration/fresh-clone.test.ts'],
  [/^sudo scripts\/install-system-deps\.sh( && npm install && npm test)?$/, 'test/integration/fresh-clone.test.ts'],
  [/^npm start$/, 'test/integration/fresh-clone.test.ts'],
  // Needs a host to keep anchors on; audit-anchor checks stdout is the anchor alone.
  [/^airlock audit head \| ssh backup /, 'test/integration/audit-anchor.test.ts'],
  [/^npm run build$/, 'test/integration/fresh-clone.test.ts'],
  [/^npm test$/, 'test/integration/fresh-clone.test.ts'],
  [/^npm run (lint|bench|fuzz|soak|dist)$/, 'test/unit/electron-builder-config.test.ts'],
  [/^airlock serve( --web --port 7777)?$/, 'test/e2e/web-security.test.ts'],
  [/^AIRLOCK_HOME=\/tmp\/al airlock serve$/, 'test/helpers/daemon.ts'],
  [/^ssh -L 7777:127\.0\.0\.1:7777 server$/, 'test/e2e/web-security.test.ts'],
  [/^airlock hook claude-code --install$/, 'test/integration/hook-claude-code.test.ts'],
  [/^airlock exec (--shell )?-- /, 'test/integration/exec.test.ts'],
  [/^airlock exec --sandbox --task "\$AIRLOCK_TASK" -- make$/, 'test/integration/exec.test.ts'],
  [/^airlock task start "refactor" --sandbox -- claude$/, 'test/integration/task-sandbox.test.ts'],
  [/^airlock mcp --name filesystem -- npx -y @modelcontextprotocol\/server-filesystem \/work$/, 'test/integration/mcp-proxy.test.ts'],
  [/^git push$/, 'test/integration/ssh-sshd.test.ts'],
  [/^git -c gpg\.format=ssh .* commit -S -m msg$/, 'test/integration/ssh-openssh-clients.test.ts'],
  [/^airlock serve --upstream "\$OLD_SSH_AUTH_SOCK"$/, 'test/integration/ssh-upstream-login.test.ts'],
  [/^airlock watch$/, 'test/integration/core-watch-tmux.test.ts'],
  [/^ssh -o ExitOnForwardFailure=yes -R \/tmp\/airlock-build-…\.sock:/, 'test/integration/remote-ssh.test.ts'],
  [/^airlock exec -- make deploy$/, 'test/integration/remote-ssh.test.ts'],
];
/** Lines run here, verbatim (the tests below). */
const HERE: RegExp[] = [
  /^printf '%s\\n' '\{"jsonrpc".*\n\s*\| python3 -c 'import socket,sys; .*' "\$AIRLOCK_HOME\/request\.sock"$/,
  /^airlock check -a transfer -t deploy -r staging\.example\.com /,
  /^eval "\$\(airlock task start "fix CI on repo X" --env\)"$/,
  /^airlock grants (add|list|revoke)\b/,
  /^airlock task (list --all|end "\$AIRLOCK_TASK")$/,
  /^airlock history\b/,
  /^airlock audit verify$/,
  /^anchor=\$\(airlock audit head\)$/,
  /^airlock audit verify --anchor "\$anchor"$/,
  /^airlock remote add build me@build\.example\.com$/,
  /^export SSH_AUTH_SOCK=\$AIRLOCK_HOME\/agent\.sock$/,
  /^airlock keys generate work --type ed25519$/,
  /^ssh-add -L$/,
];

let d: Daemon;
let ui: RpcClient;
let work: string;
let env: NodeJS.ProcessEnv;
before(async () => {
  d = await startDaemon({ home: tempHome('alrd-') });
  ui = await d.ui();
  work = fs.mkdtempSync(path.join(d.home, 'w-'));
  // `airlock` is `node bin/airlock` (README "The daemon"); here, the CLI this test was built with.
  const bin = path.join(work, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'airlock'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`, { mode: 0o755 });
  env = { ...d.env, PATH: `${bin}:${process.env.PATH}`, HOME: work };
});
after(async () => {
  ui?.close();
  await d?.stop();
  fs.rmSync(d.home, { recursive: true, force: true });
});

function sh(script: string, timeoutMs = 60_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (b) => (stdout += b));
    p.stderr.on('data', (b) => (stderr += b));
    const t = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Plays the human: allows the next prompt once. */
async function allowNext(): Promise<Prompt> {
  let p: Prompt | undefined;
  await waitFor(async () => {
    p = (await ui.call<{ prompts: Prompt[] }>('pending.list', {})).prompts[0];
    return p !== undefined;
  }, 'a prompt', 30_000, 50);
  await ui.call('pending.decide', { id: p!.id, decision: 'allow', scope: 'once' });
  return p!;
}

test('every README example runs here or names the test that runs it', () => {
  const missing: string[] = [];
  for (const b of BLOCKS) {
    for (const l of b) {
      const c = command(l);
      if (HERE.some((re) => re.test(c))) continue;
      const hit = ELSEWHERE.find(([re]) => re.test(c));
      if (!hit) missing.push(c);
      else assert.ok(fs.existsSync(path.join(REPO, hit[1])), `${hit[1]} (named for \`${c}\`) does not exist`);
    }
  }
  assert.deepEqual(missing, [], 'README examples no test runs: run them in test/integration/readme.test.ts or name their test in ELSEWHERE');
});

test('README "The JSON API": the example waits for the human and prints the answer; so does socat with shut-none', async () => {
  const script = block('"$AIRLOCK_HOME/request.sock"');
  const running = sh(script);
  const p = await allowNext();
  assert.equal(p.resource, '/repo/src/a.ts');
  const r = await running;
  assert.equal(r.code, 0, r.stderr);
  const shown = JSON.parse(/^# (\{.*\})$/m.exec(README.slice(README.indexOf('"$AIRLOCK_HOME/request.sock"')))![1]!) as { result: Record<string, unknown> };
  const got = JSON.parse(r.stdout.trim()) as { jsonrpc: string; id: number; result: Record<string, unknown> };
  assert.equal(got.id, 1);
  assert.deepEqual(Object.keys(got.result).sort(), Object.keys(shown.result).sort(), 'the answer has the fields the README shows');
  assert.equal(got.result.decision, shown.result.decision);
  assert.equal(got.result.reason, shown.result.reason);

  // The socat line the README gives (its -t shortened so the test is quick).
  const socatLine = /`(socat -t 120 - UNIX-CONNECT:\$AIRLOCK_HOME\/request\.sock,shut-none)`/.exec(README)![1]!;
  const printf = script.split('\n')[0]!.replace(/\\$/, '');
  const viaSocat = sh(`${printf} | ${socatLine.replace('-t 120', '-t 3')}`);
  await allowNext();
  const s2 = await viaSocat;
  assert.equal((JSON.parse(s2.stdout.trim()) as { result: { decision: string } }).result.decision, 'allow', s2.stderr);

  // Why: plain `socat -` half-closes at the end of its input; the request is denied.
  const plain = await sh(`${printf} | socat - UNIX-CONNECT:$AIRLOCK_HOME/request.sock`);
  assert.equal(plain.stdout, '', 'no answer ever reaches plain socat');
  await waitFor(async () => {
    const { events } = await ui.call<{ events: { reason: string }[] }>('history.query', { limit: 1 });
    return /disconnected/.test(events[0]?.reason ?? '');
  }, 'the request denied as disconnected', 10_000);
});

test('README "Asking from scripts": airlock check … && ./deploy.sh runs the script once allowed', async () => {
  fs.writeFileSync(path.join(work, 'deploy.sh'), '#!/bin/sh\ntouch deployed\n', { mode: 0o755 });
  const running = sh(block('airlock check -a transfer -t deploy'));
  const p = await allowNext();
  assert.equal(p.summary, 'deploy dist/ to staging');
  const r = await running;
  assert.equal(r.code, 0, r.stderr);
  assert.ok(fs.existsSync(path.join(work, 'deployed')));
});

test('README "Tasks and grants": the whole block runs as written', async () => {
  const script = block('airlock task start "fix CI on repo X"').replace('g_xxxxxxxx', '"$(airlock grants list --json | jq -r \'.[-1].id\')"');
  const r = await sh(script);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /created g_\S+: allow write Write \S+\/src\/\*\*/);
  assert.match(r.stdout, /created g_\S+: deny delete \* \S+\/Mail\/\*\*/);
  assert.match(r.stdout, /revoked g_/);
  assert.match(r.stdout, /fix CI on repo X/);
});

test('README "History and audit": the block runs as written', async () => {
  const { tasks } = await ui.call<{ tasks: { id: string }[] }>('tasks.list', { includeEnded: true });
  const r = await sh(block('airlock history --decision deny').replace('t_xxx', tasks[0]!.id));
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /deploy dist\/ to staging/);
  assert.match(r.stdout, /task "fix CI on repo X" started through request\.sock by /, 'history --tool task.start lists the task the Tasks block started');
  assert.match(r.stdout, /^ok: \d+ events, chain intact$/m);
  assert.match(r.stdout, /^ok: \d+ events, chain intact; the anchor matches$/m, 'audit verify --anchor "$(airlock audit head)"');
});

test('README "The SSH agent that asks": generate a key, ssh-add -L shows it', async () => {
  const lines = block('airlock keys generate work').split('\n').filter((l) => /^(export SSH_AUTH_SOCK|airlock keys generate|ssh-add -L)/.test(l));
  assert.equal(lines.length, 3);
  const r = await sh(lines.join('\n'));
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^ssh-ed25519 AAAA\S+ work\n(ssh-ed25519 AAAA\S+ work\n)?$/);
});

test('README "Agents on other machines": airlock remote add prints the ssh command', async () => {
  const first = block('airlock remote add build').split('\n')[0]!;
  const r = await sh(first);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^ {2}ssh -o ExitOnForwardFailure=yes -R \/tmp\/airlock-build-[0-9a-f]+\.sock:\S+ -o ForwardAgent=\S+ -t me@build\.example\.com /m);
});
