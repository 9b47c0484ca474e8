// Claude Code's settings directory moved by CLAUDE_CONFIG_DIR is guarded like ~/.claude:
// the risk rules (core/risk.ts through core/claude-config.ts), the daemon's memory of the
// directories it has seen (core/claude-dir-memory.ts) and the reading of a process's
// environment from /proc (os/claude-config-env.ts), with the ways around each kept as cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CoreRequest } from '../../main/core/request';
import { assessRisk, remember, type TaskMemory } from '../../main/core/risk';
import { resourcesCovered } from '../../main/core/grants';
import { ClaudeDirMemory } from '../../main/core/claude-dir-memory';
import { MAX_REMEMBERED_DIRS } from '../../main/core/claude-config';
import { claudeConfigValuesOf, configValuesOf } from '../../main/os/claude-config-env';
import { ProcessChain } from '../../main/os/process-chain';
import { resolveRealPaths } from '../../main/os/real-path';
import { Store } from '../../main/store';
import type { ClaudeDirKeeper } from '../../main/core/ports';

function req(p: Partial<CoreRequest>): CoreRequest {
  const resources = p.resources ?? [];
  return { source: 'claude-code', tool: 'Write', action: 'write', resource: resources[0] ?? null, resources, summary: '', argsText: null, args: undefined, task: 't_1', cwd: '/repo', classifierRisk: [], ...p };
}
const at = (action: string, res: string, dirs: string[] = ['/srv/cc']) => assessRisk(req({ action: action as CoreRequest['action'], resources: [res], claudeDirs: dirs }), {});

test('a CLAUDE_CONFIG_DIR directory is Claude Code settings: its settings.json, .claude.json and the directory itself are critical; commands and shell snapshots high; other files there plain', () => {
  for (const [action, res] of [
    ['write', '/srv/cc/settings.json'],
    ['write', '/srv/cc/settings.local.json'],
    ['write', '/srv/cc/.claude.json'],
    ['write', '/srv/cc/.config.json'],
    ['delete', '/srv/cc'],
    ['delete', '/srv/cc/'],
    ['delete', '/srv'],
    ['delete', '/'],
    // Spellings: trailing slashes, doubled slashes, `.` and `..`, case (macOS ignores it).
    ['write', '/srv/cc/settings.json/'],
    ['write', '/srv//cc/./settings.json'],
    ['write', '/srv/cc/sub/../settings.json'],
    ['write', '/srv/other/../cc/settings.json'],
    ['write', '/SRV/CC/Settings.JSON'],
  ] as const) {
    const r = at(action, res);
    assert.equal(r.level, 'critical', `${action} ${res}: ${r.reasons.join(' | ')}`);
    assert.ok(r.reasons.some((x) => /switch Airlock off/.test(x)), `${action} ${res}: ${r.reasons.join(' | ')}`);
  }
  for (const res of ['/srv/cc/commands/ship.md', '/srv/cc/hooks/x.sh', '/srv/cc/shell-snapshots/snapshot-bash-1.sh', '/srv/cc/agents/a.md']) {
    assert.equal(at('write', res).level, 'high', res);
  }
  // Its login token is a secret: read then sent is the read-then-send chain.
  assert.equal(at('read', '/srv/cc/.credentials.json').level, 'medium');
  assert.equal(at('transfer', '/srv/cc/.credentials.json').level, 'critical');
  // Names that merely start alike, and files Claude Code keeps there that run nothing.
  for (const res of ['/srv/cc-evil/settings.json', '/srv/ccsettings.json', '/srv/cc/projects/x/1.jsonl', '/srv/cc/todos/a.json']) {
    assert.equal(at('write', res).level, 'medium', res);
  }
  // Without the directory known, the same path is a plain write (the control).
  assert.equal(at('write', '/srv/cc/settings.json', []).level, 'medium');
  // A directory of `/` makes `/settings.json` critical, not every write.
  assert.equal(at('write', '/settings.json', ['/']).level, 'critical');
  assert.equal(at('write', '/repo/a.txt', ['/']).level, 'medium');
});

test("~/.claude.json (Claude Code's global config: MCP servers it starts) is critical; a project's .claude.json stays high; .claude in any case is Claude Code's", () => {
  const home = os.homedir();
  for (const res of [`${home}/.claude.json`, '~/.claude.json', `${home}/.claude/.config.json`, `${home}/.CLAUDE/settings.json`, '/repo/.Claude/Settings.Local.json']) {
    assert.equal(at('write', res, []).level, 'critical', res);
  }
  assert.equal(at('write', '/repo/sub/.claude.json', []).level, 'high');
  assert.equal(at('write', `${home}/.claude/shell-snapshots/s.sh`, []).level, 'high');
  // Deleting a directory that holds ~/.claude removes the hook.
  assert.equal(at('delete', home, []).level, 'critical');
});

test('the daemon remembers every CLAUDE_CONFIG_DIR it was told, resolves relative ones and links, and a flood stops at the cap without pushing any out', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'al-ccdir-'));
  const real = path.join(root, 'real-cc');
  fs.mkdirSync(real);
  fs.symlinkSync(real, path.join(root, 'link-cc'));
  const m = new ClaudeDirMemory([{ value: '/seeded/', cwd: null }], { resolve: resolveRealPaths });
  // A relative value is the requesting process's working directory's; a link's target counts too.
  const dirs = m.forRequest([{ value: 'link-cc', cwd: root }, { value: '', cwd: root }]);
  for (const d of ['/seeded', path.join(root, 'link-cc'), real, root]) assert.ok(dirs.includes(d), `${d} in ${dirs.join(', ')}`);
  // A later request that says nothing still gets them.
  assert.ok(m.forRequest([]).includes(real));
  // Garbage is ignored, never a crash.
  assert.deepEqual(m.forRequest([{ value: 'rel-without-cwd', cwd: null }, { value: 'x'.repeat(5000), cwd: '/' }, { value: 'a\0b', cwd: '/' }, { value: 'x', cwd: 'not-absolute' }]), m.list());
  // A chain of parents repeating one value is read as one; more distinct values than the cap are cut, never a crash.
  assert.ok(m.forRequest([...Array.from({ length: 500 }, () => ({ value: '/same', cwd: null })), { value: '/after-repeats', cwd: null }]).includes('/after-repeats'));
  for (let i = 0; i < 200; i++) m.forRequest([{ value: `/flood/${i}`, cwd: null }]);
  assert.equal(m.list().length, MAX_REMEMBERED_DIRS);
  assert.ok(m.list().includes(real) && m.list().includes('/seeded'), 'nothing remembered before the flood is pushed out');
  // Past the cap a request's own directory still counts for it.
  assert.ok(m.forRequest([{ value: '/late', cwd: null }]).includes('/late'));
  fs.rmSync(root, { recursive: true, force: true });
});

test('what the daemon remembers is kept in the database: a restarted daemon knows it before any request names it, at the same cap, none pushed out; a busy database is tried again', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'al-ccdb-')), 'airlock.db');
  const keeperOf = (s: Store): ClaudeDirKeeper => ({ load: (max) => s.claudeConfigDirs(max), keep: (d, max) => s.keepClaudeConfigDir(d, 1, max) });
  let s = new Store(file);
  const first = new ClaudeDirMemory([{ value: '/daemon/own/', cwd: null }], { keeper: keeperOf(s) });
  first.forRequest([{ value: '/srv/cc/', cwd: null }]);
  first.forRequest([{ value: 'rel', cwd: '/home/u' }]);
  for (let i = 0; i < 200; i++) first.forRequest([{ value: `/flood/${i}`, cwd: null }]);
  assert.equal(first.list().length, MAX_REMEMBERED_DIRS);
  s.close();
  // A restart with no CLAUDE_CONFIG_DIR of its own: what was remembered is there before any request.
  s = new Store(file);
  const second = new ClaudeDirMemory([], { keeper: keeperOf(s) });
  assert.deepEqual(second.list(), first.list(), 'the same directories, in the order first seen');
  for (const d of ['/daemon/own', '/srv/cc', '/home/u/rel']) assert.ok(second.forRequest([]).includes(d), d);
  // Still only growing, at the same cap: a new directory past it is not kept, none is pushed out.
  second.forRequest([{ value: '/after/restart', cwd: null }]);
  assert.equal(s.claudeConfigDirs(1000).length, MAX_REMEMBERED_DIRS);
  assert.ok(!s.claudeConfigDirs(1000).includes('/after/restart'));
  assert.ok(second.forRequest([{ value: '/after/restart', cwd: null }]).includes('/after/restart'), 'past the cap a request\'s own directory still counts for it');
  // Garbage from the table (written by hand) is not taken for a directory.
  s.db.prepare('DELETE FROM claude_config_dirs').run();
  s.db.prepare("INSERT INTO claude_config_dirs (dir, first_seen) VALUES ('relative/x', 1), ('/ok//x/', 2)").run();
  assert.deepEqual(new ClaudeDirMemory([], { keeper: keeperOf(s) }).list(), ['/ok/x']);
  s.close();
  // A keeper that fails (the database busy) loses nothing: memory holds it and the next request tries again.
  const kept: string[] = [];
  let busy = true;
  const flaky = new ClaudeDirMemory([], { keeper: { load: () => [], keep: (d) => { if (busy) throw new Error('SQLITE_BUSY'); kept.push(d); return true; } } });
  assert.ok(flaky.forRequest([{ value: '/busy/cc', cwd: null }]).includes('/busy/cc'));
  busy = false;
  flaky.forRequest([]);
  assert.deepEqual(kept, ['/busy/cc']);
  // A keeper whose load fails still remembers what requests carry.
  assert.ok(new ClaudeDirMemory([], { keeper: { load: () => { throw new Error('no table'); }, keep: () => true } }).forRequest([{ value: '/x', cwd: null }]).includes('/x'));
});

test("CLAUDE_CONFIG_DIR is read from /proc for the process and all its parents (past a setsid), relative to each one's working directory, links resolved", { skip: !fs.existsSync('/proc/self') }, async () => {
  assert.deepEqual(configValuesOf(Buffer.from('A=1\0CLAUDE_CONFIG_DIR=/x\0CLAUDE_CONFIG_DIR_NOT=/y\0CLAUDE_CONFIG_DIR=\0')), ['/x', '']);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'al-ccenv-'));
  fs.mkdirSync(path.join(root, 'cfg'));
  fs.symlinkSync(path.join(root, 'cfg'), path.join(root, 'cfglink'));
  // The parent has a relative CLAUDE_CONFIG_DIR (through a link); its child drops the variable and starts a new session.
  const env = { ...process.env, CLAUDE_CONFIG_DIR: 'cfglink/' };
  const p = spawn('sh', ['-c', 'env -u CLAUDE_CONFIG_DIR setsid sleep 30 & echo $!; wait'], { cwd: root, env, stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const pid = await new Promise<number>((resolve) => p.stdout!.once('data', (b: Buffer) => resolve(Number(String(b).trim()))));
    // The os side reads each value as it is, with the working directory of the process that has it.
    const values = claudeConfigValuesOf(new ProcessChain(pid));
    assert.ok(values.some((v) => v.value === 'cfglink/' && v.cwd === root), JSON.stringify(values));
    // The core says which directories they name: relative to that cwd, links resolved.
    const dirs = new ClaudeDirMemory([], { resolve: resolveRealPaths }).forRequest(values);
    assert.ok(dirs.includes(path.join(root, 'cfglink')), dirs.join(', '));
    assert.ok(dirs.includes(path.join(root, 'cfg')), dirs.join(', '));
    assert.deepEqual(claudeConfigValuesOf(new ProcessChain(-1)), []);
  } finally {
    p.kill('SIGKILL');
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a wildcard grant does not reach commands, hooks or the login token in a CLAUDE_CONFIG_DIR directory unless it names them; a task that read the token and sends data out is critical', () => {
  const dirs = ['/srv/cc'];
  for (const res of ['/srv/cc/commands/ship.md', '/srv/cc/hooks/pre.sh', '/srv/cc/.credentials.json', '/SRV/CC/Commands/ship.md']) {
    assert.equal(resourcesCovered('/srv/**', [res], 'allow', dirs), false, res);
    assert.equal(resourcesCovered('/srv/**', [res], 'allow'), res.startsWith('/SRV') ? false : true, `${res} without the directory known (control)`);
  }
  assert.equal(resourcesCovered('/srv/cc/commands/*', ['/srv/cc/commands/ship.md'], 'allow', dirs), true, 'a grant naming the place covers it');
  assert.equal(resourcesCovered('/srv/cc/commands/ship.md', ['/srv/cc/commands/ship.md'], 'allow', dirs), true, 'a grant naming the file covers it');
  assert.equal(resourcesCovered('/srv/**', ['/srv/cc/projects/a.jsonl'], 'allow', dirs), true, 'an ordinary file there is covered');
  const m: TaskMemory = {};
  remember(m, 'read', ['/srv/cc/.credentials.json'], 'Read', undefined, dirs);
  assert.equal(m.secretRead, '/srv/cc/.credentials.json');
  assert.equal(assessRisk(req({ action: 'transfer', resources: ['paste.example'], claudeDirs: dirs }), m).level, 'critical');
});

test("another HOME's global config (.claude.json beside the .claude the hook reported) is critical like ~/.claude.json; a look-alike stays high", () => {
  // `HOME=/home/other claude`: the hook reports /home/other, the daemon guards /home/other/.claude.
  const dirs = ['/home/other/.claude'];
  for (const res of ['/home/other/.claude.json', '/home/other//.claude.json', '/HOME/OTHER/.Claude.json']) {
    const r = at('write', res, dirs);
    assert.equal(r.level, 'critical', `${res}: ${r.reasons.join(' | ')}`);
  }
  // Names that merely look alike, and the same path with no such home known.
  for (const res of ['/home/otherx/.claude.json', '/home/other/sub/.claude.json']) assert.equal(at('write', res, dirs).level, 'high', res);
  for (const res of ['/home/other/x.claude.json', '/home/other/.claude.json.bak']) assert.equal(at('write', res, dirs).level, 'medium', res);
  assert.equal(at('write', '/home/other/.claude.json', []).level, 'high', 'control: unknown home, a project-level .claude.json');
});
