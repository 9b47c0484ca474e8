// Red team of the Claude Code hook's session files (main/integrations/claude-code/session-files.ts,
// hook-service.ts fileFor), as a hostile agent that can run the hook (or write its JSON to
// request.sock) with any session id, and that can read /proc and ~/.claude like any process of
// the user: it knows a victim Claude Code's session id (its transcript's name) and its pid and
// start time (the owner the daemon records). Each attempt must leave the victim on a task of
// its own: never the attacker's task (whose grants the victim's prompts would then feed), and
// the attacker never on the victim's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentRequest } from '../../main/contract/agent';
import { answerClaudeCodeHook, type HookDesk } from '../../main/integrations/claude-code/hook-service';
import { foreignSessionFile, sessionFile } from '../../main/integrations/claude-code/session-files';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'al-hsess-'));
let tasks = 0;

/** A stand-in broker door that allows and records which task each call was asked as, and who asked. */
function desk(dir: string, who: () => string) {
  const asked: { owner: string; task: string | undefined }[] = [];
  const ended: string[] = [];
  const whys: string[] = [];
  const d: HookDesk = {
    sessionsDir: dir,
    sessionOwner: who,
    ask: async (r: AgentRequest) => {
      asked.push({ owner: who(), task: r.task });
      return { decision: 'allow', reason: 'fine', event: 1 };
    },
    startTask: async () => ({ token: `t_task${++tasks}.${'s'.repeat(43)}` }),
    endTask: async (t, why) => void (ended.push(t), whys.push(why)),
    recordRefused: () => undefined,
  };
  return { desk: d, asked, ended, whys };
}

const call = (sid: string) => JSON.stringify({ session_id: sid, cwd: '/work/proj', hook_event_name: 'PreToolUse', tool_name: 'Read', tool_input: { file_path: '/etc/hostname' } });
const hash32 = (owner: string) => crypto.createHash('sha256').update(owner).digest('hex').slice(0, 32);

test("red team: a session id spelled like another caller's own file (<session>.<hash of its owner>) never hands that caller the attacker's task", async () => {
  for (const claimedFirst of [false, true]) {
    const dir = path.join(root, `plant-${claimedFirst}`);
    let who = '';
    const { desk: d, asked } = desk(dir, () => who);
    const victim = '4242@777001';
    const sid = '0f3c9a52-7d1e-4b7a-9f00-2c1d5e6f7a8b';
    if (claimedFirst) {
      // Someone else holds the session first (a resumed session: the old Claude Code's file), so
      // the victim's calls go to its own file `<session>.<hash of victim>.task`.
      who = '1000@1';
      await answerClaudeCodeHook({ stdin: call(sid) }, d);
    }
    // The attacker names the session `<sid>.<hash of the victim's owner>`: the file the daemon
    // would give the victim as its own.
    who = '5150@999';
    await answerClaudeCodeHook({ stdin: call(`${sid}.${hash32(victim)}`) }, d);
    const attackerTask = asked.at(-1)!.task!;
    assert.ok(attackerTask);
    // The victim's own calls of its session.
    who = victim;
    await answerClaudeCodeHook({ stdin: call(sid) }, d);
    await answerClaudeCodeHook({ stdin: call(sid) }, d);
    const victimTask = asked.at(-1)!.task!;
    assert.equal(asked.at(-2)!.task, victimTask, 'the victim keeps one task');
    assert.notEqual(victimTask, attackerTask, `the victim was asked as the attacker's task (claimed first: ${claimedFirst}): "allow for this task" on its prompts would be the attacker's grant`);
    // And the attacker's next call is still its own task, not the victim's.
    who = '5150@999';
    await answerClaudeCodeHook({ stdin: call(`${sid}.${hash32(victim)}`) }, d);
    assert.equal(asked.at(-1)!.task, attackerTask);
    assert.notEqual(asked.at(-1)!.task, victimTask);
  }
});

test("session file names: no session id names a file that is some caller's own file of another session (the two never collide)", () => {
  const dir = '/x/claude-code';
  const ids = ['s', 's.0123456789abcdef0123456789abcdef', `s.${hash32('a')}`, 's.', '.', '..', 'a/b', 'a_b', 'a.b', 'ä', 'x'.repeat(300), `${'x'.repeat(120)}.${hash32('a')}`];
  const owners = ['', 'none', '1@2', 'a'];
  const mains = new Set(ids.map((id) => sessionFile(dir, id)));
  for (const id of ids) {
    for (const o of owners) {
      const own = foreignSessionFile(sessionFile(dir, id), o);
      assert.ok(!mains.has(own), `${JSON.stringify(id.slice(0, 40))} of ${JSON.stringify(o)}: its own file ${path.basename(own)} is also a session's file`);
      assert.equal(path.dirname(own), dir);
    }
    assert.equal(path.dirname(sessionFile(dir, id)), dir);
  }
});

test('red team: what an approved script could plant in the sessions folder (a link, a FIFO, a directory) is never followed, never waited on, and never takes a session its task', { timeout: 20_000 }, async () => {
  const dir = path.join(root, 'planted');
  fs.mkdirSync(dir, { recursive: true });
  const outside = path.join(root, 'outside.txt');
  fs.writeFileSync(outside, 'the user file\n');
  const { desk: d, asked } = desk(dir, () => '77@1');
  // A link where the daemon writes its temporary file: the file it leads to is left as it was.
  fs.symlinkSync(outside, path.join(dir, `link-tmp.task.${process.pid}.tmp`));
  await answerClaudeCodeHook({ stdin: call('link-tmp') }, d);
  assert.equal(fs.readFileSync(outside, 'utf8'), 'the user file\n', 'the daemon wrote a token through a planted link');
  assert.ok(fs.lstatSync(path.join(dir, 'link-tmp.task')).isFile());
  const linkTmpTask = asked.at(-1)!.task;
  // A session's files as links to a file holding another task's token, with its owner: not that task.
  const stolen = path.join(root, 'stolen');
  fs.writeFileSync(`${stolen}.task`, 't_victim.vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv\n');
  fs.writeFileSync(`${stolen}.owner`, '77@1\n');
  fs.symlinkSync(`${stolen}.task`, path.join(dir, 'linked.task'));
  fs.symlinkSync(`${stolen}.owner`, path.join(dir, 'linked.owner'));
  await answerClaudeCodeHook({ stdin: call('linked') }, d);
  assert.notEqual(asked.at(-1)!.task, 't_victim.vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv');
  // A FIFO as a session's task file and as another's owner file: answered, nothing waits on them.
  const { execFileSync } = await import('node:child_process');
  execFileSync('mkfifo', [path.join(dir, 'fifo.task'), path.join(dir, 'fifo2.owner')]);
  fs.writeFileSync(path.join(dir, 'fifo2.task'), 't_fifo2.fffffffffffffffffffffffffffffffffffffffffff\n');
  const before = asked.length;
  await answerClaudeCodeHook({ stdin: call('fifo') }, d);
  await answerClaudeCodeHook({ stdin: call('brand-new') }, d); // makeRoom reads every owner file
  assert.equal(asked.length, before + 2, 'both calls answered');
  // A directory where a stray temporary file would be: new sessions still get their tasks.
  const oldDir = path.join(dir, `dir.task.1.tmp`);
  fs.mkdirSync(oldDir);
  const hourAgo = new Date(Date.now() - 3600_000);
  fs.utimesSync(oldDir, hourAgo, hourAgo);
  await answerClaudeCodeHook({ stdin: call('after-dir') }, d);
  assert.ok(asked.at(-1)!.task, 'a new session got its task');
  // The first session still has its own task.
  await answerClaudeCodeHook({ stdin: call('link-tmp') }, d);
  assert.equal(asked.at(-1)!.task, linkTmpTask);
});

test("red team: a flood from another process of ids that collide with a victim's session file (the same id, its spellings after sanitising, its own-file names) never lets the victim's session go or ends its task", async () => {
  const dir = path.join(root, 'collide-flood');
  let who = '';
  const { desk: d, asked, ended } = desk(dir, () => who);
  const victim = '4242@777001';
  const sid = 'v-1';
  who = victim;
  await answerClaudeCodeHook({ stdin: call(sid) }, d);
  const victimTask = asked.at(-1)!.task!;
  // A stranger (foreign on the session) first, so its own file exists too.
  who = '1000@1';
  await answerClaudeCodeHook({ stdin: call(sid) }, d);
  who = '5150@999';
  const ids = [sid, 'v/1', 'v_1', 'v.1', 'v 1', `${sid}.${hash32(victim)}`, `${sid}.${hash32('1000@1')}`, `${sid}_${hash32(victim)}`, `${sid}\0`, `${sid}${'x'.repeat(200)}`];
  for (let round = 0; round < 3; round++) for (const [i, id] of ids.entries()) await answerClaudeCodeHook({ stdin: call(`${id}${round ? `-${round}-${i}` : ''}`) }, d);
  await new Promise((r) => setImmediate(r));
  assert.ok(!ended.includes(victimTask), "the victim's task was ended");
  who = victim;
  await answerClaudeCodeHook({ stdin: call(sid) }, d);
  assert.equal(asked.at(-1)!.task, victimTask, 'the victim keeps its task');
  assert.ok(!asked.filter((a) => a.owner !== victim).some((a) => a.task === victimTask), "no other process was asked as the victim's task");
  assert.equal(fs.readFileSync(path.join(dir, `${sid}.owner`), 'utf8').trim(), victim);
});

test("red team: a session whose task file cannot be written (a directory planted at its name) asks, and the task each call starts is ended, not left running uncounted", async () => {
  const dir = path.join(root, 'unwritable');
  fs.mkdirSync(path.join(dir, 'blocked.task'), { recursive: true });
  const { desk: d, asked, ended, whys } = desk(dir, () => '88@1');
  const started: string[] = [];
  const start = d.startTask;
  d.startTask = async (p) => {
    const r = await start(p);
    started.push(r.token);
    return r;
  };
  for (let i = 0; i < 3; i++) {
    const out = await answerClaudeCodeHook({ stdin: call('blocked') }, d);
    const printed = JSON.parse(Buffer.from(out.stdoutHex, 'hex').toString('utf8')) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    assert.equal(printed.hookSpecificOutput.permissionDecision, 'ask');
    assert.match(printed.hookSpecificOutput.permissionDecisionReason, /could not keep this Claude Code session's task/);
  }
  assert.equal(asked.length, 0, 'no call went to the broker under a task nobody keeps');
  await new Promise((r) => setImmediate(r));
  assert.equal(started.length, 3);
  assert.deepEqual(ended, started, 'every task started for the session was ended');
  assert.deepEqual(whys, ['not-kept', 'not-kept', 'not-kept'], 'each end says why (its history row)');
  // Control: once the directory is gone the session gets a task it keeps.
  fs.rmSync(path.join(dir, 'blocked.task'), { recursive: true });
  await answerClaudeCodeHook({ stdin: call('blocked') }, d);
  await answerClaudeCodeHook({ stdin: call('blocked') }, d);
  assert.equal(asked.length, 2);
  assert.ok(asked[0]!.task);
  assert.equal(asked[1]!.task, asked[0]!.task);
});
