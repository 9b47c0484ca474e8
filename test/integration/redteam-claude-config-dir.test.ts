// Red team: Claude Code run with CLAUDE_CONFIG_DIR keeps its settings (and Airlock's hook)
// in that directory, not ~/.claude. Against the real daemon and the real hook: a write grant
// covering the directory answers for an ordinary file there (control), but never for the
// settings, whatever spelling reaches them; and an `airlock exec` that hides the variable
// from its own environment still cannot write them once Claude Code's hook has asked.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, startDaemon, type Daemon } from '../helpers/daemon';
import { Human } from '../helpers/human';
import { run } from '../helpers/run';
import type { RpcClient } from '../../main/client/rpc-client';
import type { Prompt } from '../../main/contract/approver';
import { HOOK_VARIANTS, type HookVariant } from '../helpers/native-hook';

const HOOK_BIN = path.join(__dirname, '..', '..', 'main', 'integrations', 'claude-code', 'bin.js');

let d: Daemon;
let ui: RpcClient;
let human: Human;
let work: string;
let outer: string;
let cfg: string;
let fakeHome: string;

before(async () => {
  // The daemon itself knows no CLAUDE_CONFIG_DIR: what it learns comes from the requests.
  d = await startDaemon({ env: { CLAUDE_CONFIG_DIR: undefined } });
  ui = await d.ui();
  human = await Human.on(ui);
  work = fs.mkdtempSync(path.join(d.home, 'work-'));
  outer = fs.mkdtempSync(path.join(d.home, 'outer-'));
  cfg = path.join(outer, 'cc-config');
  fs.mkdirSync(cfg);
  fs.writeFileSync(path.join(cfg, 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [] } }));
  fs.symlinkSync(cfg, path.join(work, 'cfglink'));
  fakeHome = fs.mkdtempSync(path.join(d.home, 'home-'));
  await ui.call('grants.create', { action: 'write', resource: `${d.home}/**`, effect: 'allow' });
  await ui.call('grants.create', { action: 'delete', resource: `${d.home}/**`, effect: 'allow' });
  await ui.call('grants.create', { action: 'execute', resource: '**', effect: 'allow' });
});
after(async () => {
  ui?.close();
  await d?.stop();
});

let session = 0;
const sessionId = () => `8f2e1d3c-aaaa-4bbb-8ccc-${String(++session).padStart(12, '0')}`;

function claudeJson(tool_name: string, tool_input: Record<string, unknown>) {
  const sid = sessionId();
  return JSON.stringify({ session_id: sid, transcript_path: `/tmp/${sid}.jsonl`, cwd: work, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name, tool_input });
}

type HookAnswer = { permissionDecision: 'allow' | 'deny' | 'ask'; permissionDecisionReason: string };

/** `v`: which hook runs (the Node relay or the native client: both send CLAUDE_CONFIG_DIR and their cwd). */
async function hookOf(input: string, configDir: string | undefined, cwd = work, v: HookVariant = HOOK_VARIANTS[0]!): Promise<HookAnswer> {
  const env: NodeJS.ProcessEnv = { ...d.env, HOME: fakeHome, CLAUDE_CONFIG_DIR: configDir };
  const r = v.name === 'node' ? await run(process.execPath, [HOOK_BIN], { env, input, cwd, timeoutMs: 55_000 }) : await run(v.cmd, v.args, { env, input, cwd, timeoutMs: 55_000 });
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { hookSpecificOutput: HookAnswer }).hookSpecificOutput;
}

/** The Node hook (the tests below keep state between calls, so they run once). */
const hook = (input: string, configDir: string | undefined, cwd = work) => hookOf(input, configDir, cwd);

async function mustPrompt(answer: Promise<unknown>): Promise<Prompt> {
  const prompt = await human.next(45_000);
  await human.decide(prompt.id, 'deny');
  await answer;
  return prompt;
}

const critical = (p: Prompt, what: string) => {
  assert.equal(p.risk.level, 'critical', `${what}: ${p.risk.reasons.join(' | ')}`);
  assert.ok(p.risk.reasons.some((r) => /switch Airlock off/.test(r)), `${what}: ${p.risk.reasons.join(' | ')}`);
};

describe('red team: Claude Code settings moved by CLAUDE_CONFIG_DIR', () => {
  test('every spelling of the moved settings asks, critical, whatever grants say; its commands and hooks are not covered by a wildcard grant; an ordinary file there is covered (control)', async () => {
    // Both hooks (the native one when built): the daemon resolves what each one sends.
    for (const v of HOOK_VARIANTS.filter((x) => !x.skip)) await movedSettings(v);
  });

  async function movedSettings(v: HookVariant): Promise<void> {
    const hookV = (input: string, configDir: string | undefined, cwd = work) => hookOf(input, configDir, cwd, v);
    const control = await hookV(claudeJson('Write', { file_path: `${cfg}/projects/notes.jsonl`, content: 'x' }), cfg);
    assert.equal(control.permissionDecision, 'allow', control.permissionDecisionReason);
    const upper = path.join(path.dirname(cfg), 'CC-CONFIG');
    const off = JSON.stringify({ disableAllHooks: true });
    for (const [tool, input] of [
      ['Write', { file_path: `${cfg}/settings.json`, content: off }],
      ['Edit', { file_path: `${cfg}/settings.json`, old_string: '"hooks"', new_string: '"hooks_"' }],
      ['Write', { file_path: `${cfg}/.claude.json`, content: '{"mcpServers":{"x":{"command":"sh"}}}' }],
      // Relative to the session's cwd, through a link, with `..`, a trailing slash, doubled slashes, other case.
      ['Write', { file_path: `../${path.basename(outer)}/cc-config/settings.json`, content: off }],
      ['Write', { file_path: 'cfglink/settings.json', content: off }],
      ['Write', { file_path: `${cfg}/x/../settings.json`, content: off }],
      ['Write', { file_path: `${cfg}//settings.json`, content: off }],
      ['Write', { file_path: `${upper}/settings.json`, content: off }],
      ['Bash', { command: `echo '${off}' > ${cfg}/settings.json` }],
      ['Bash', { command: `rm -rf ${cfg}/` }],
      ['Bash', { command: `mv ${cfg} ${work}/moved` }],
      ['Bash', { command: `rm -rf ${outer}` }],
    ] as const) {
      critical(await mustPrompt(hookV(claudeJson(tool, input), cfg)), `${tool} ${JSON.stringify(input)}`);
    }
    // How the variable is spelled does not matter either: relative to Claude Code's working
    // directory, through a link, with a trailing slash.
    for (const [value, cwd] of [[`../${path.basename(outer)}/cc-config`, work], [`${work}/cfglink/`, work], ['cc-config', outer]] as const) {
      critical(await mustPrompt(hookV(claudeJson('Write', { file_path: `${cfg}/settings.json`, content: off }), value, cwd)), `CLAUDE_CONFIG_DIR=${value} in ${cwd}`);
    }
    // What Claude Code runs from there (slash commands, hooks) is not covered by the wildcard grant either.
    for (const file_path of [`${cfg}/commands/ship.md`, 'cfglink/hooks/pre.sh']) {
      const p = await mustPrompt(hookV(claudeJson('Write', { file_path, content: '!sh x' }), cfg));
      assert.equal(p.risk.level, 'high', `${file_path}: ${p.risk.reasons.join(' | ')}`);
    }
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(cfg, 'settings.json'), 'utf8')), { hooks: { PreToolUse: [] } });
    assert.deepEqual(human.unanswered(), [], v.name);
  }

  test('where there is no /proc to read, the hook\'s word counts: a request naming claudeConfigDir (absolute, or relative to its cwd) guards that directory; before, the same write was plain (control)', async () => {
    const agent = await d.agent();
    try {
      const dir = fs.mkdtempSync(path.join(d.home, 'told-'));
      const write = (resource: string, extra: Record<string, unknown> = {}) => agent.call<{ decision: string }>('request', { source: 'api', tool: 'Write', action: 'write', resource, summary: `write ${resource}`, cwd: work, ...extra });
      assert.equal((await write(`${dir}/a/settings.json`)).decision, 'allow', 'control: a directory nobody named is covered by the grant');
      const p1 = await mustPrompt(write(`${dir}/a/settings.json`, { claudeConfigDir: `${dir}/a` }));
      critical(p1, 'claudeConfigDir absolute');
      const rel = path.relative(work, path.join(dir, 'b'));
      const p2 = await mustPrompt(write(`${dir}/b/.claude.json`, { claudeConfigDir: rel }));
      critical(p2, `claudeConfigDir relative ${rel}`);
      // Oversized or odd values are refused by the contract or ignored, never a crash, never less risk.
      await assert.rejects(write(`${dir}/c/x`, { claudeConfigDir: 'x'.repeat(5000) }), /claudeConfigDir/);
      const p3 = await mustPrompt(write(`${fakeHome}/.claude/settings.json`, { claudeConfigDir: '/nonexistent' }));
      critical(p3, '~/.claude stays guarded whatever the request names');
    } finally {
      agent.close();
    }
  });

  test('once Claude Code\'s hook has asked, an airlock exec that drops the variable and starts a new session still cannot write the settings; before, the same write was plain (control)', async () => {
    const other = fs.mkdtempSync(path.join(d.home, 'other-'));
    const otherCfg = path.join(other, 'cc2');
    fs.mkdirSync(otherCfg);
    const env: NodeJS.ProcessEnv = { ...d.env, HOME: fakeHome, CLAUDE_CONFIG_DIR: undefined };
    const exec = (cmd: string) => run('setsid', [process.execPath, CLI, 'exec', '--shell', '--', cmd], { cwd: work, env, timeoutMs: 30_000 });
    // Control: a directory no Claude Code named yet is a plain write the grant covers.
    const before = await exec(`echo '{}' > ${otherCfg}/settings.json`);
    assert.equal(before.code, 0, before.stderr);
    assert.equal(fs.readFileSync(path.join(otherCfg, 'settings.json'), 'utf8').trim(), '{}');
    // Claude Code with CLAUDE_CONFIG_DIR=otherCfg asks about anything: the daemon learns the directory.
    const seen = await hook(claudeJson('Read', { file_path: `${work}/a.txt` }), otherCfg);
    assert.notEqual(seen.permissionDecision, undefined);
    const p = await mustPrompt(exec(`echo '{"disableAllHooks":true}' > ${otherCfg}/settings.json`));
    critical(p, 'exec after the hook named the directory');
    assert.equal(fs.readFileSync(path.join(otherCfg, 'settings.json'), 'utf8').trim(), '{}');
  });

  // Last: it restarts the daemon.
  test('a directory once seen stays guarded after the daemon restarts: a requester without the variable cannot write its settings before anyone names it again; another directory stays plain (control)', async () => {
    const kept = fs.mkdtempSync(path.join(d.home, 'kept-'));
    const keptCfg = path.join(kept, 'cc3');
    fs.mkdirSync(keptCfg);
    fs.writeFileSync(path.join(keptCfg, 'settings.json'), '{}');
    const write = async (resource: string, extra: Record<string, unknown> = {}) => {
      const agent = await d.agent();
      try {
        return await agent.call<{ decision: string }>('request', { source: 'api', tool: 'Write', action: 'write', resource, summary: `write ${resource}`, cwd: work, ...extra });
      } finally {
        agent.close();
      }
    };
    // Claude Code with CLAUDE_CONFIG_DIR=keptCfg asks once: the daemon learns the directory.
    critical(await mustPrompt(write(`${keptCfg}/settings.json`, { claudeConfigDir: keptCfg })), 'named by the request');
    ui.close();
    await d.stop();
    d = await d.restart();
    ui = await d.ui();
    human = await Human.on(ui);
    // Nobody has named it since the restart: neither the daemon's environment, nor the requester's.
    critical(await mustPrompt(write(`${keptCfg}/settings.json`)), 'after a restart, a request without the variable');
    const env: NodeJS.ProcessEnv = { ...d.env, HOME: fakeHome, CLAUDE_CONFIG_DIR: undefined };
    const p = await mustPrompt(run('setsid', [process.execPath, CLI, 'exec', '--shell', '--', `echo '{"disableAllHooks":true}' > ${keptCfg}/settings.json`], { cwd: work, env, timeoutMs: 30_000 }));
    critical(p, 'after a restart, airlock exec without the variable');
    assert.equal(fs.readFileSync(path.join(keptCfg, 'settings.json'), 'utf8'), '{}');
    // Control: a directory nobody named is still a plain write the grant covers.
    assert.equal((await write(`${kept}/plain/settings.json`)).decision, 'allow');
  });
});
