// Hard links (red team, sixth wave): `ln ~/.claude/settings.json notes.json` makes notes.json
// the settings file itself, so a later "ordinary workspace write" of notes.json rewrites
// Claude Code's hooks. Real files, the real daemon (its HOME a temp directory holding the
// protected files), a task with a grant that allows every write in its project; the write
// arrives through request.sock, the Claude Code hook (Write, Edit, Bash), `airlock exec
// --shell` and the MCP proxy in front of the real server-filesystem. Each must be asked with
// the protected file's risk and say "hard link to …"; creating the link is asked as a write
// of the protected file.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { RpcClient } from '../../main/client/rpc-client';
import type { AgentAnswer } from '../../main/contract/agent';
import type { Prompt } from '../../main/contract/approver';
import { CLI, REPO, startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import { run } from '../helpers/run';

const HOOK_BIN = path.join(__dirname, '..', '..', 'main', 'integrations', 'claude-code', 'bin.js');
const FS_SERVER = path.join(REPO, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');

let d: Daemon;
let ui: RpcClient;
let agent: RpcClient;
let human: Human;
/** The daemon's (and the agent's) home directory. */
let H: string;
/** The task's project. */
let P: string;
let task: string;
let token: string;

/** protected file → the level a direct write of it gets (filled in `before`). */
const PROTECTED: Record<string, { file: () => string; level: string; what: RegExp }> = {
  settings: { file: () => path.join(H, '.claude', 'settings.json'), level: 'critical', what: /Claude Code's settings/ },
  bashrc: { file: () => path.join(H, '.bashrc'), level: 'high', what: /shell start-up file/ },
  authorized: { file: () => path.join(H, '.ssh', 'authorized_keys'), level: 'high', what: /~\/\.ssh/ },
  hook: { file: () => path.join(P, '.git', 'hooks', 'pre-commit'), level: 'high', what: /git hook/ },
};
const ORIGINAL = 'original\n';

before(async () => {
  H = fs.realpathSync(tempHome('al-hl-'));
  P = path.join(H, 'proj');
  for (const dir of [path.join(H, '.claude'), path.join(H, '.ssh'), path.join(P, '.git', 'hooks')]) fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(P, '.git', 'config'), '[core]\n');
  for (const p of Object.values(PROTECTED)) fs.writeFileSync(p.file(), ORIGINAL);
  d = await startDaemon({ env: { HOME: H } });
  ui = await d.ui();
  agent = await d.agent();
  human = await Human.on(ui);
  ({ task, token } = await agent.call<{ task: string; token: string }>('task.start', { name: 'hard-links', cwd: P }));
  // The grant an agent working in its project would have: every write in it.
  await ui.call('grants.create', { task, action: 'write', resource: `${P}/**`, effect: 'allow' });
});
after(async () => {
  agent?.close();
  ui?.close();
  await d?.stop();
});

const write = (resource: string) =>
  agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.write', action: 'write', resource, summary: `write ${resource}`, task, token });

/** Takes the prompt `pending` must raise, denies it, and returns it with the answer. */
async function denied<T>(pending: Promise<T>): Promise<{ prompt: Prompt; answer: T }> {
  const prompt = await human.next(20_000);
  await human.decide(prompt.id, 'deny');
  return { prompt, answer: await pending };
}

/** A fresh hard link to the protected file `key`, in the project. */
function linkTo(key: keyof typeof PROTECTED, name: string): string {
  const link = path.join(P, name);
  fs.rmSync(link, { force: true });
  fs.linkSync(PROTECTED[key].file(), link);
  return link;
}

function hasHardLinkReason(p: Prompt, link: string, target: string): boolean {
  return p.risk.reasons.some((r) => r.includes(`${link} is a hard link to ${target}`));
}

async function hook(tool: string, input: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const raw = JSON.stringify({ session_id: 'hardlinks-1', transcript_path: '/x.jsonl', cwd: P, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input });
  const r = await run(process.execPath, [HOOK_BIN], { env: { ...d.env, ...env }, input: raw, timeoutMs: 30_000 });
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput.permissionDecision;
}

describe('hard links to protected files', () => {
  test('controls: the grant allows an ordinary write, and two names of an ordinary file stay ordinary', async () => {
    assert.equal((await write(path.join(P, 'plain.txt'))).decision, 'allow');
    fs.writeFileSync(path.join(P, 'a.txt'), 'a');
    fs.linkSync(path.join(P, 'a.txt'), path.join(P, 'b.txt'));
    assert.equal(fs.statSync(path.join(P, 'b.txt')).nlink, 2);
    const a = await write(path.join(P, 'b.txt'));
    assert.equal(a.decision, 'allow', a.reason);
    assert.equal(human.unanswered().length, 0);
  });

  test('request.sock: a write of a hard link is asked with the protected file\'s own risk, and says "hard link to …"', async () => {
    for (const key of Object.keys(PROTECTED) as (keyof typeof PROTECTED)[]) {
      const target = PROTECTED[key].file();
      const direct = await denied(write(target));
      assert.equal(direct.prompt.risk.level, PROTECTED[key].level, `${key}: the direct write`);
      const link = linkTo(key, `notes-${key}.json`);
      const { prompt, answer } = await denied(write(link));
      assert.equal(answer.decision, 'deny', key);
      assert.equal(prompt.risk.level, direct.prompt.risk.level, `${key}: ${prompt.risk.reasons.join(' | ')}`);
      assert.ok(hasHardLinkReason(prompt, link, target), `${key}: ${prompt.risk.reasons.join(' | ')}`);
      assert.ok(prompt.risk.reasons.some((r) => PROTECTED[key].what.test(r) && r.includes(target)), `${key}: the protected file's own reason: ${prompt.risk.reasons.join(' | ')}`);
      assert.ok(prompt.resources.includes(target), `${key}: the protected file is a resource`);
    }
  });

  test('a hard link in a subdirectory of the project to its git hook is found too', async () => {
    fs.mkdirSync(path.join(P, 'src', 'deep'), { recursive: true });
    const link = linkTo('hook', path.join('src', 'deep', 'util.sh'));
    const { prompt } = await denied(write(link));
    assert.equal(prompt.risk.level, 'high');
    assert.ok(hasHardLinkReason(prompt, link, PROTECTED.hook.file()), prompt.risk.reasons.join(' | '));
  });

  test('the Claude Code hook: Write and Edit of a hard link to Claude Code\'s settings are asked (critical) and denied; the settings are untouched', async () => {
    const link = linkTo('settings', 'notes.json');
    const target = PROTECTED.settings.file();
    for (const [tool, input] of [
      ['Write', { file_path: link, content: '{"hooks":{}}' }],
      ['Edit', { file_path: link, old_string: 'original', new_string: '{"disableAllHooks":true}' }],
    ] as const) {
      const { prompt, answer } = await denied(hook(tool, input));
      assert.equal(answer, 'deny', tool);
      assert.equal(prompt.risk.level, 'critical', `${tool}: ${prompt.risk.reasons.join(' | ')}`);
      assert.ok(hasHardLinkReason(prompt, link, target), `${tool}: ${prompt.risk.reasons.join(' | ')}`);
    }
    assert.equal(fs.readFileSync(target, 'utf8'), ORIGINAL);
  });

  test('Claude Code run with CLAUDE_CONFIG_DIR: a hard link to the settings in that directory is asked (critical) like the default one', async () => {
    const cc = path.join(H, 'cc');
    fs.mkdirSync(cc);
    fs.writeFileSync(path.join(cc, 'settings.json'), ORIGINAL);
    const link = path.join(P, 'cc-notes.json');
    fs.linkSync(path.join(cc, 'settings.json'), link);
    const { prompt, answer } = await denied(hook('Write', { file_path: link, content: '{}' }, { CLAUDE_CONFIG_DIR: cc }));
    assert.equal(answer, 'deny');
    assert.equal(prompt.risk.level, 'critical', prompt.risk.reasons.join(' | '));
    assert.ok(hasHardLinkReason(prompt, link, path.join(cc, 'settings.json')), prompt.risk.reasons.join(' | '));
    assert.equal(fs.readFileSync(path.join(cc, 'settings.json'), 'utf8'), ORIGINAL);
  });

  test('airlock exec --shell: `echo … > link` is asked; denied, ~/.bashrc is untouched (control: the same shell line through /bin/sh rewrites the file)', async () => {
    // Control on a scratch pair: a shell redirection writes through the link into the other name.
    const scratch = fs.mkdtempSync(path.join(H, 'scratch-'));
    fs.writeFileSync(path.join(scratch, 'rc'), ORIGINAL);
    fs.linkSync(path.join(scratch, 'rc'), path.join(scratch, 'notes.txt'));
    execFileSync('/bin/sh', ['-c', 'echo pwned > notes.txt'], { cwd: scratch });
    assert.equal(fs.readFileSync(path.join(scratch, 'rc'), 'utf8'), 'pwned\n', 'control: the write went through the hard link');

    linkTo('bashrc', 'notes.txt');
    const pending = run(process.execPath, [CLI, 'exec', '--task', token, '--shell', '--', 'echo pwned > notes.txt'], { cwd: P, env: d.env, timeoutMs: 30_000 });
    const { prompt, answer } = await denied(pending);
    assert.equal(answer.code, 126);
    assert.equal(prompt.risk.level, 'high', prompt.risk.reasons.join(' | '));
    assert.ok(hasHardLinkReason(prompt, path.join(P, 'notes.txt'), PROTECTED.bashrc.file()), prompt.risk.reasons.join(' | '));
    assert.equal(fs.readFileSync(PROTECTED.bashrc.file(), 'utf8'), ORIGINAL);
  });

  test('the MCP proxy: write_file of a hard link to ~/.ssh/authorized_keys (real server-filesystem) is asked and denied; the keys are untouched', async () => {
    const link = linkTo('authorized', 'keys.txt');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--name', 'fs', '--', process.execPath, FS_SERVER, P],
      env: d.env as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'hard-links', version: '1.0.0' });
    await client.connect(transport);
    try {
      await client.listTools();
      const call = client.callTool({ name: 'write_file', arguments: { path: link, content: 'ssh-ed25519 AAAA attacker\n' } });
      call.catch(() => undefined);
      const { prompt } = await denied(call);
      assert.equal(prompt.risk.level, 'high', prompt.risk.reasons.join(' | '));
      assert.ok(hasHardLinkReason(prompt, link, PROTECTED.authorized.file()), prompt.risk.reasons.join(' | '));
      const result = (await call) as { isError?: boolean };
      assert.equal(result.isError, true, 'the denied call reaches the agent as an error');
    } finally {
      await client.close();
    }
    assert.equal(fs.readFileSync(PROTECTED.authorized.file(), 'utf8'), ORIGINAL);
  });

  test('creating the link is asked as a write of the protected file (ln, cp -l, cp --link, link), at least as risky; control: real ln makes a second name', async () => {
    const scratch = fs.mkdtempSync(path.join(H, 'scratch-'));
    fs.writeFileSync(path.join(scratch, 'f'), ORIGINAL);
    execFileSync('ln', [path.join(scratch, 'f'), path.join(scratch, 'g')]);
    assert.equal(fs.statSync(path.join(scratch, 'f')).nlink, 2, 'control: ln made a hard link');

    const before = Object.fromEntries(Object.entries(PROTECTED).map(([k, p]) => [k, fs.statSync(p.file()).nlink]));
    const cases: [string, keyof typeof PROTECTED][] = [
      [`ln ${PROTECTED.settings.file()} notes2.json`, 'settings'],
      ['ln ~/.claude/settings.json notes3.json', 'settings'],
      ['cp -l ~/.bashrc rc.txt', 'bashrc'],
      [`cp --link ${PROTECTED.authorized.file()} k.txt`, 'authorized'],
      ['link .git/hooks/pre-commit helper.sh', 'hook'],
      ['ln -t . ~/.bashrc', 'bashrc'],
    ];
    for (const [cmd, key] of cases) {
      const { prompt, answer } = await denied(hook('Bash', { command: cmd }));
      assert.equal(answer, 'deny', cmd);
      assert.notEqual(prompt.action, 'read', cmd);
      assert.equal(prompt.risk.level, PROTECTED[key].level, `${cmd}: ${prompt.risk.reasons.join(' | ')}`);
      assert.ok(prompt.risk.reasons.some((r) => PROTECTED[key].what.test(r)), `${cmd}: ${prompt.risk.reasons.join(' | ')}`);
    }
    for (const [k, p] of Object.entries(PROTECTED)) assert.equal(fs.statSync(p.file()).nlink, before[k], `${k}: no new name was made`);
  });
});
