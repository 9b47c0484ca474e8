// Issue 10, item 1, for real: the ways around the approver that the issue found, each
// run in a throwaway directory. First directly with /bin/sh (the control: it shows the
// command really deletes, empties or runs something, so this test can fail), then
// through `airlock exec --shell` and through the Claude Code hook against a real daemon
// with a human who denies. Each must raise a prompt that says which rule fired, and
// nothing may happen: the marker is not created, the victim keeps its content, and
// the hook never answers `allow`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import { run } from '../helpers/run';
import type { RpcClient } from '../../main/client/rpc-client';

const HOOK_BIN = path.join(__dirname, '..', '..', 'main', 'integrations', 'claude-code', 'bin.js');
const VICTIM = 'victim.txt';
const MARKER = 'marker';

interface Attack {
  name: string;
  cmd: string;
  /** A substring of a risk reason the prompt must show (none for a plain delete). */
  why: RegExp | null;
  git?: boolean;
  setup?: (dir: string) => void;
}

const ATTACKS: Attack[] = [
  { name: 'env -S', cmd: `env -S 'rm -f ${VICTIM}'`, why: /env -S runs a command/ },
  { name: 'hash -p', cmd: `bash -c 'hash -p /bin/rm cat; cat ${VICTIM}'`, why: /hash -p/ },
  { name: 'sort -o', cmd: `sort -o ${VICTIM} /dev/null`, why: /sort -o writes its output to a file/ },
  { name: 'sort --out (abbreviated)', cmd: `sort --out=${VICTIM} /dev/null`, why: /sort --output/ },
  { name: 'uniq IN OUT', cmd: `uniq /dev/null ${VICTIM}`, why: /uniq writes its output there/ },
  { name: 'sed w', cmd: `sed -n 'w ${VICTIM}' /dev/null`, why: /sed script writes a file/ },
  { name: 'sed --in-pl (abbreviated)', cmd: `sed --in-pl 's/o/0/' ${VICTIM}`, why: /sed --in-place/ },
  { name: 'git diff --output', cmd: `git diff --output=${VICTIM}`, why: /git diff --output/, git: true },
  { name: 'alias on an earlier line', cmd: `alias cat='rm -f'\ncat ${VICTIM}`, why: /alias defines a command name/ },
  { name: 'sed s///e', cmd: `sed 's/.*/touch ${MARKER}/e' input.txt`, why: /sed script runs a shell command/ },
  { name: 'sed 1e', cmd: `sed -n '1e touch ${MARKER}' input.txt`, why: /sed script runs a shell command/ },
  { name: 'awk print | cmd', cmd: `awk 'BEGIN{print "" | "touch ${MARKER}"}'`, why: /pipes to or from a command/ },
  { name: 'trap', cmd: `trap 'touch ${MARKER}' EXIT`, why: /trap runs a command/ },
  { name: 'git -c core.fsmonitor', cmd: `git -c core.fsmonitor='touch ${MARKER}; false' status`, why: /git -c sets configuration/, git: true },
  { name: 'GIT_CONFIG_* variables', cmd: `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch ${MARKER}; false' git status`, why: /VAR prefix GIT_CONFIG_COUNT/, git: true },
  { name: 'git grep -O', cmd: `git grep -O'touch ${MARKER}; :' hello`, why: /git grep -O/, git: true },
  { name: 'tar --checkpoint-action', cmd: `tar --checkpoint=1 --checkpoint-action=exec='touch ${MARKER}' -cf /dev/null input.txt`, why: /tar --checkpoint-action/ },
  { name: 'BASH_ENV', cmd: 'BASH_ENV=./benv bash -c true', why: /VAR prefix BASH_ENV/, setup: (d) => fs.writeFileSync(path.join(d, 'benv'), `touch ${MARKER}\n`) },
  { name: 'compgen -C', cmd: `bash -c "compgen -C 'touch ${MARKER}' x"`, why: /compgen -C/ },
  { name: 'arithmetic on a variable', cmd: `bash -c 'x="a[\\$(touch ${MARKER})]"; echo $((x))'`, why: /arithmetic on a variable/ },
  { name: '[[ -eq ]] on a variable', cmd: `bash -c 'x="a[\\$(touch ${MARKER})]"; [[ $x -eq 0 ]]'`, why: /compares as arithmetic/ },
  { name: 'PATH prefix', cmd: 'PATH=./evil:$PATH ls', why: /VAR prefix PATH/, setup: (d) => {
    fs.mkdirSync(path.join(d, 'evil'));
    fs.writeFileSync(path.join(d, 'evil', 'ls'), `#!/bin/sh\ntouch ${MARKER}\n`, { mode: 0o755 });
  } },
  { name: '>& file', cmd: `bash -c 'ls >& ${VICTIM}'`, why: /./ },
  { name: 'yq -i', cmd: `yq -y -i '.a = 1' ${VICTIM}`, why: /yq -i edits the file in place/, setup: (d) => fs.writeFileSync(path.join(d, VICTIM), 'a: 0\n') },
  { name: 'comment ending in a backslash (the parser took the next line into the comment)', cmd: `ls # x\\\nrm -f ${VICTIM}`, why: null },
  { name: 'xargs appends options', cmd: `echo -o${VICTIM} | xargs sort /dev/null`, why: /xargs appends words from its input to sort/ },
];

const ORIGINAL = 'hello world\n';

function prepare(a: Attack): string {
  const dir = fs.mkdtempSync(path.join(tempHome('al-bypass-'), 'w-'));
  fs.writeFileSync(path.join(dir, VICTIM), ORIGINAL);
  fs.writeFileSync(path.join(dir, 'input.txt'), 'one line\n');
  if (a.git) {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: dir } });
    git('init', '-q');
    git('add', 'input.txt', VICTIM);
  }
  a.setup?.(dir);
  original.set(dir, fs.readFileSync(path.join(dir, VICTIM), 'utf8'));
  return dir;
}
const original = new Map<string, string>();

/** What the attack did: null when nothing. */
function damage(dir: string): string | null {
  if (fs.existsSync(path.join(dir, MARKER))) return `${MARKER} was created`;
  const v = path.join(dir, VICTIM);
  if (!fs.existsSync(v)) return `${VICTIM} was deleted`;
  if (fs.readFileSync(v, 'utf8') !== original.get(dir)) return `${VICTIM} was changed`;
  return null;
}

const childEnv = (dir: string, base: NodeJS.ProcessEnv) => ({ ...base, HOME: dir, GIT_CONFIG_NOSYSTEM: '1' });

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

describe('ways around the approver, run for real (issue 10)', () => {
  for (const a of ATTACKS) {
    test(a.name, async () => {
      // Control: run directly, the attack does what it says.
      const control = prepare(a);
      await run('/bin/sh', ['-c', a.cmd], { cwd: control, env: childEnv(control, process.env), timeoutMs: 20_000 });
      assert.ok(damage(control), `control: ${JSON.stringify(a.cmd)} did nothing when run directly, so this row proves nothing`);

      // airlock exec --shell: a prompt, denied, and nothing happened.
      const dir = prepare(a);
      const pending = run(process.execPath, [CLI, 'exec', '--shell', '--', a.cmd], { cwd: dir, env: childEnv(dir, d.env), timeoutMs: 30_000 });
      const p = await human.next(20_000);
      assert.notEqual(p.action, 'read', JSON.stringify(p));
      if (a.why) assert.ok(p.risk.reasons.some((r) => a.why!.test(r)), `the prompt does not say why: ${JSON.stringify(p.risk.reasons)}`);
      await human.decide(p.id, 'deny');
      const r = await pending;
      assert.equal(r.code, 126, r.stderr);
      assert.equal(damage(dir), null);

      // The Claude Code hook: a prompt too, and never `allow`.
      const hookDir = prepare(a);
      const input = JSON.stringify({ session_id: `bypass-${a.name.replace(/\W+/g, '-')}`, transcript_path: '/x.jsonl', cwd: hookDir, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: a.cmd } });
      const hooked = run(process.execPath, [HOOK_BIN], { env: d.env, input, timeoutMs: 30_000 });
      const hp = await human.next(20_000);
      assert.notEqual(hp.action, 'read');
      await human.decide(hp.id, 'deny');
      const out = JSON.parse((await hooked).stdout) as { hookSpecificOutput: { permissionDecision: string } };
      assert.equal(out.hookSpecificOutput.permissionDecision, 'deny');
      assert.equal(damage(hookDir), null);
    });
  }

  test('the history records which rule made the command non-read', async () => {
    const { events } = await ui.call<{ events: { riskReasons?: string[]; risk?: { reasons: string[] }; summary?: string }[] }>('history.query', { source: 'exec', limit: 200 });
    const text = JSON.stringify(events);
    for (const why of ['sort -o writes its output to a file', 'env -S runs a command', 'VAR prefix GIT_CONFIG_COUNT']) assert.ok(text.includes(why), `history lacks "${why}"`);
  });

  test('plain reads stay silent through exec and the hook', async () => {
    const dir = prepare({ name: 'reads', cmd: '', why: null, git: true });
    for (const cmd of ['ls -la', 'cat input.txt | grep one', 'git status --short', 'git log --oneline -5 2>/dev/null || true', "sed -n '1p' input.txt", "awk '{print $1}' input.txt", 'sort input.txt | uniq -c', 'find . -name "*.txt"']) {
      const r = await run(process.execPath, [CLI, 'exec', '--shell', '--', cmd], { cwd: dir, env: childEnv(dir, d.env), timeoutMs: 30_000 });
      assert.equal(r.code, 0, `${cmd}: ${r.stderr}`);
      const input = JSON.stringify({ session_id: 'reads', transcript_path: '/x.jsonl', cwd: dir, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: cmd } });
      const out = JSON.parse((await run(process.execPath, [HOOK_BIN], { env: d.env, input, timeoutMs: 30_000 })).stdout) as { hookSpecificOutput: { permissionDecision: string } };
      assert.equal(out.hookSpecificOutput.permissionDecision, 'allow', cmd);
    }
    assert.equal(human.unanswered().length, 0, 'no prompt for a plain read');
  });
});
