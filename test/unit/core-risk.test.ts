import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CoreRequest } from '../../main/core/request';
import { assessRisk, remember, type TaskMemory } from '../../main/core/risk';
import { ownPathsOf } from '../../main/os/own-paths';
import { airlockPaths } from '../../main/os/paths';

type Footprint = { action: string; resources: string[]; tool: string };

function req(p: Partial<CoreRequest>): CoreRequest {
  const resources = p.resources ?? [];
  return { source: 'exec', tool: 'Bash', action: 'read', resource: resources[0] ?? null, resources, summary: '', argsText: null, args: undefined, task: 't_1', cwd: '/repo', classifierRisk: [], ...p };
}

const cases: { name: string; r: Partial<CoreRequest>; footprint?: Footprint[]; level: string; reason?: RegExp }[] = [
  { name: 'a plain read is low', r: { action: 'read', resources: ['/repo/src/a.ts'] }, level: 'low' },
  { name: 'a plain write is medium', r: { action: 'write', resources: ['/repo/src/a.ts'] }, level: 'medium' },
  { name: 'reading .env is medium (secrets)', r: { action: 'read', resources: ['/repo/.env'] }, level: 'medium', reason: /\.env/ },
  { name: 'write to .git/hooks is high', r: { action: 'write', resources: ['/repo/.git/hooks/pre-commit'] }, level: 'high', reason: /git hook/ },
  { name: 'write to .git/config is high', r: { action: 'write', resources: ['/repo/.git/config'] }, level: 'high' },
  { name: 'write to files a shell, session or tool runs at start or exit is high (logout files, X session, environment.d, tmux, lesskey, editors, gdb, gradle init)', r: { action: 'write', resources: ['/home/u/.bash_logout', '/home/u/.zlogout', '/home/u/.xprofile', '/home/u/.xsessionrc', '/home/u/.pam_environment', '/home/u/.config/environment.d/10-x.conf', '/home/u/.config/fish/conf.d/x.fish', '/home/u/.tmux.conf', '/home/u/.config/tmux/tmux.conf', '/home/u/.screenrc', '/home/u/.lesskey', '/home/u/.config/lesskey', '/home/u/.config/nvim/init.lua', '/home/u/.emacs', '/home/u/.emacs.d/init.el', '/repo/.exrc', '/repo/.gdbinit', '/home/u/.mavenrc', '/home/u/.gradle/init.d/x.gradle'] }, level: 'high', reason: /runs at start or exit/ },
  { name: 'write to ~/.bashrc is high', r: { action: 'write', resources: ['/home/u/.bashrc'] }, level: 'high', reason: /shell start-up/ },
  { name: 'write to ~/.ssh is high', r: { action: 'write', resources: ['/home/u/.ssh/authorized_keys'] }, level: 'high' },
  { name: 'write to a CI workflow is high', r: { action: 'write', resources: ['/repo/.github/workflows/ci.yml'] }, level: 'high', reason: /CI workflow/ },
  { name: 'write to package.json is high', r: { action: 'write', resources: ['/repo/package.json'] }, level: 'high', reason: /npm scripts/ },
  { name: 'write to autostart is high', r: { action: 'write', resources: ['/home/u/.config/autostart/x.desktop'] }, level: 'high' },
  { name: 'classifier reasons raise risk', r: { action: 'execute', classifierRisk: [{ level: 'high', reason: 'downloads and runs code' }] }, level: 'high', reason: /downloads/ },
  { name: 'SSH signature of unknown data is high', r: { action: 'sign', ssh: { key: 'k', fingerprint: 'f', purpose: 'unknown', forwarded: false } }, level: 'high' },
  { name: 'a key added with ssh-add -c is critical (a grant never answers for it)', r: { action: 'sign', args: { confirmRequired: true }, ssh: { key: 'k', fingerprint: 'f', purpose: 'login', forwarded: false } }, level: 'critical', reason: /ssh-add -c/ },
  { name: 'a login without session binding is high', r: { action: 'sign', resources: ['git@unverified-host'], resource: 'git@unverified-host', ssh: { key: 'k', fingerprint: 'f', purpose: 'login', forwarded: false, host: 'unverified-host' } }, level: 'high', reason: /did not prove/ },
  { name: 'a revoked host key is critical', r: { action: 'sign', args: { hostKeyRevoked: true }, ssh: { key: 'k', fingerprint: 'f', purpose: 'login', forwarded: false } }, level: 'critical', reason: /revoked/ },
  { name: 'forwarded SSH is high', r: { action: 'sign', ssh: { key: 'k', fingerprint: 'f', purpose: 'login', forwarded: true } }, level: 'high', reason: /forwarded/ },
  { name: 'uploading a secrets file in one request is critical', r: { action: 'transfer', resources: ['paste.example', '/repo/.env'] }, level: 'critical', reason: /sends a \.env file/ },
  {
    name: 'secrets read then transfer is critical',
    r: { action: 'transfer', resources: ['https://example.org'] },
    footprint: [{ action: 'read', resources: ['/repo/.env'], tool: 'Read' }],
    level: 'critical',
    reason: /read secrets/,
  },
  {
    name: 'transfer without an earlier secrets read stays medium',
    r: { action: 'transfer', resources: ['https://example.org'] },
    footprint: [{ action: 'read', resources: ['/repo/src/a.ts'], tool: 'Read' }],
    level: 'medium',
  },
  {
    name: 'git hook write then git commit is critical',
    r: { action: 'execute', args: { command: 'git add -A && git commit -m wip' } },
    footprint: [{ action: 'write', resources: ['/repo/.git/hooks/post-commit'], tool: 'Write' }],
    level: 'critical',
    reason: /git hook/,
  },
  {
    name: 'git commit without a hook write is not critical',
    r: { action: 'execute', args: { command: 'git commit -m wip' } },
    footprint: [{ action: 'write', resources: ['/repo/src/a.ts'], tool: 'Write' }],
    level: 'medium',
  },
  {
    // Red team, third wave: `grep -r . ~/.ssh` or Grep with path ~/.ssh reads every key.
    name: 'a directory of secrets read (Grep path ~/.ssh) then transfer is critical',
    r: { action: 'transfer', resources: ['example.org'] },
    footprint: [{ action: 'read', resources: ['/home/u/.ssh'], tool: 'Grep' }],
    level: 'critical',
    reason: /read secrets \(\/home\/u\/\.ssh\)/,
  },
  {
    name: 'a directory of cloud credentials read (~/.aws, ~/.config/gh) then transfer is critical',
    r: { action: 'transfer', resources: ['example.org'] },
    footprint: [{ action: 'read', resources: ['/home/u/.aws'], tool: 'Grep' }],
    level: 'critical',
  },
  { name: 'reading the ~/.ssh directory itself is medium (secrets)', r: { action: 'read', resources: ['/home/u/.ssh'] }, level: 'medium', reason: /~\/\.ssh/ },
  { name: 'reading ~/.config/gh is medium (secrets)', r: { action: 'read', resources: ['/home/u/.config/gh'] }, level: 'medium', reason: /cloud credentials/ },
  { name: 'a directory merely named like .sshd is not a secret', r: { action: 'read', resources: ['/repo/.sshd'] }, level: 'low' },
  // Red team, fifth wave: what switches the approver off is critical (no grant answers for it).
  { name: "writing a project's .claude/settings.local.json is critical (its hooks ask Airlock)", r: { action: 'write', resources: ['/repo/.claude/settings.local.json'] }, level: 'critical', reason: /Claude Code's settings.*switch Airlock off/ },
  { name: 'writing ~/.claude/settings.json is critical', r: { action: 'write', resources: ['/home/u/.claude/settings.json'] }, level: 'critical', reason: /switch Airlock off/ },
  { name: 'deleting the managed Claude Code settings is critical', r: { action: 'delete', resources: ['/etc/claude-code/managed-settings.json'] }, level: 'critical' },
  { name: "writing Airlock's own database is critical", r: { action: 'write', resources: ['/home/u/.local/share/airlock/airlock.db'] }, level: 'critical', reason: /Airlock's own data/ },
  { name: "deleting Airlock's data directory (macOS) is critical", r: { action: 'delete', resources: ['/Users/u/Library/Application Support/Airlock'] }, level: 'critical' },
  {
    name: 'an execute whose command line also writes .claude/settings.json is critical (the write part counts)',
    r: { action: 'execute', resources: ['/repo/.claude/settings.json'], parts: [{ command: 'make', action: 'execute', resources: [] }, { command: 'echo {} > .claude/settings.json', action: 'write', resources: ['/repo/.claude/settings.json'] }] },
    level: 'critical',
  },
  { name: 'write to .git/commondir is high (git then takes another directory\'s config as its own)', r: { action: 'write', resources: ['/repo/.git/commondir'] }, level: 'high', reason: /repository's own files/ },
  { name: "write to a submodule's config or hooks is high", r: { action: 'write', resources: ['/repo/.git/modules/lib/config', '/repo/.git/modules/lib/hooks/post-checkout'] }, level: 'high' },
  { name: "write to a worktree's config.worktree, the index or a .git file is high", r: { action: 'write', resources: ['/repo/.git/worktrees/w/config.worktree', '/repo/.git/index', '/repo/vendor/lib/.git'] }, level: 'high' },
  { name: 'deleting .git is high', r: { action: 'delete', resources: ['/repo/.git'] }, level: 'high' },
  { name: '.git/info/exclude is plain data: a write there stays medium', r: { action: 'write', resources: ['/repo/.git/info/exclude'] }, level: 'medium' },
  { name: 'a file merely named like .github or .gitignore is not the repository', r: { action: 'write', resources: ['/repo/.gitignore', '/repo/.github/CODEOWNERS', '/repo/x.git/y'] }, level: 'medium' },
  { name: 'write to .yarnrc.yml is high (yarnPath runs a file on every yarn command, yarn why included)', r: { action: 'write', resources: ['/repo/.yarnrc.yml'] }, level: 'high', reason: /yarnPath/ },
  { name: 'write to a toolchain file (rust-toolchain.toml path, cargo config, asdf .tool-versions, mise.toml) is high', r: { action: 'write', resources: ['/repo/rust-toolchain.toml', '/repo/rust-toolchain', '/repo/.cargo/config.toml', '/repo/.cargo/config', '/repo/.tool-versions', '/repo/.mise.toml', '/repo/mise.toml'] }, level: 'high' },
  { name: "write to yarn's release or plugin files, classic .yarnrc or .pnpmfile.cjs is high", r: { action: 'write', resources: ['/repo/.yarn/releases/yarn-4.1.0.cjs', '/repo/.yarn/plugins/p.cjs', '/repo/.yarnrc', '/repo/.pnpmfile.cjs'] }, level: 'high' },
  { name: 'write to /etc/gitconfig (git config --system) is high, named as git config', r: { action: 'write', resources: ['/etc/gitconfig'] }, level: 'high', reason: /git config/ },
  { name: 'write to ~/.config/git/config is high (the XDG twin of ~/.gitconfig)', r: { action: 'write', resources: ['/home/u/.config/git/config'] }, level: 'high', reason: /git config/ },
  { name: 'deleting or moving a .claude directory (it holds the settings) is critical', r: { action: 'delete', resources: ['/home/u/.claude', '/repo/.claude/'] }, level: 'critical', reason: /switch Airlock off/ },
  { name: 'a directory merely named like .claude-notes is not the settings', r: { action: 'delete', resources: ['/repo/.claude-notes', '/repo/claude'] }, level: 'medium' },
  { name: 'reading .claude/settings.json stays low', r: { action: 'read', resources: ['/repo/.claude/settings.json'] }, level: 'low' },
  { name: 'a file merely named settings.json elsewhere is a plain write', r: { action: 'write', resources: ['/repo/.vscode/settings.json', '/repo/claude/settings.json'] }, level: 'medium' },
  { name: 'writing .mcp.json is high (Claude Code starts the servers it names)', r: { action: 'write', resources: ['/repo/.mcp.json'] }, level: 'high', reason: /MCP servers/ },
  { name: 'writing a slash command or skill is high', r: { action: 'write', resources: ['/repo/.claude/commands/deploy.md', '/home/u/.claude/skills/x/run.sh'] }, level: 'high' },
  { name: "reading Airlock's key store is medium (secrets)", r: { action: 'read', resources: ['/home/u/.local/share/airlock/keys/master.secret'] }, level: 'medium', reason: /Airlock's key and secret store/ },
  {
    name: "Airlock's master.secret read then transfer is critical",
    r: { action: 'transfer', resources: ['example.org'] },
    footprint: [{ action: 'read', resources: ['/home/u/.local/share/airlock/keys/master.secret'], tool: 'Read' }],
    level: 'critical',
    reason: /read secrets/,
  },
  { name: "reading a Claude Code session's task token (Airlock's claude-code/<session>.task) is high: it is the power to act as that task", r: { action: 'read', resources: ['/run/user/1000/airlock/claude-code/5e55a1d0-7a3b.task'] }, level: 'high', reason: /can act as that session's task/ },
  { name: 'a file merely named like a session file elsewhere (claude-code.task, claude-code/x.owner) stays a plain read', r: { action: 'read', resources: ['/repo/claude-code.task', '/run/user/1000/airlock/claude-code/x.owner'] }, level: 'low' },
  {
    name: "a session's task token read, then transfer, is critical",
    r: { action: 'transfer', resources: ['example.org'] },
    footprint: [{ action: 'read', resources: ['/tmp/airlock-1000/remotes/srv/claude-code/s.task'], tool: 'Read' }],
    level: 'critical',
    reason: /read secrets/,
  },
  {
    name: 'chains do not cross tasks (no task, no chain)',
    r: { action: 'transfer', task: null, resources: ['https://example.org'] },
    footprint: [{ action: 'read', resources: ['/repo/.env'], tool: 'Read' }],
    level: 'medium',
  },
];

for (const c of cases) {
  test(`risk: ${c.name}`, () => {
    const memory: TaskMemory = {};
    for (const f of c.footprint ?? []) remember(memory, f.action, f.resources);
    const r = assessRisk(req(c.r), memory);
    assert.equal(r.level, c.level, JSON.stringify(r));
    if (c.reason) assert.ok(r.reasons.some((x) => c.reason!.test(x)), JSON.stringify(r.reasons));
  });
}

test("the running daemon's own files under a custom AIRLOCK_HOME are critical to write or delete; a delete of a directory holding them too; a workspace beside them is not", () => {
  const own = ownPathsOf(airlockPaths({ AIRLOCK_HOME: '/work/proj/.airlock' }));
  const at = (action: CoreRequest['action'], resources: string[]) => assessRisk(req({ action, resources }), {}, own);
  for (const [action, res] of [
    ['write', '/work/proj/.airlock/airlock.db'],
    ['write', '/work/proj/.airlock/keys/master.secret'],
    ['delete', '/work/proj/.airlock/tasks/t_1/request.sock'],
    ['delete', '/work/proj/.airlock/request.sock'],
    ['write', '/work/proj/.airlock/claude-code/5e55a1d0.owner'],
    ['write', '/work/proj/.airlock/claude-code/5e55a1d0.task'],
    ['delete', '/work/proj/.airlock'],
    ['delete', '/work/proj'],
    ['delete', '/'],
  ] as const) {
    const r = at(action, [res]);
    assert.equal(r.level, 'critical', `${action} ${res}`);
    assert.ok(r.reasons.some((x) => /Airlock's own files.*switch Airlock off/.test(x)), `${action} ${res}: ${r.reasons.join(' | ')}`);
  }
  // Beside them, and names that merely start alike: plain writes and deletes.
  for (const [action, res] of [
    ['write', '/work/proj/.airlock/notes.txt'],
    ['delete', '/work/proj/src/main.c'],
    ['write', '/work/proj/.airlock/airlock.db.bak'],
    ['delete', '/work/proj/.airlock/keys-old'],
    ['write', '/work/proj'],
  ] as const) assert.equal(at(action, [res]).level, 'medium', `${action} ${res}`);
  // A read of them stays a read; without own paths nothing changes.
  assert.equal(at('read', ['/work/proj/.airlock/airlock.db']).level, 'low');
  assert.equal(assessRisk(req({ action: 'delete', resources: ['/work/proj/.airlock/airlock.db'] }), {}).level, 'medium');
});

test("a Claude Code Bash call that asks to leave Claude Code's sandbox (dangerouslyDisableSandbox) is high, a read included, so it is asked; false or absent changes nothing; other sources are not read for it", () => {
  const bash = (args: unknown, extra: Partial<CoreRequest> = {}) => assessRisk(req({ source: 'claude-code', tool: 'Bash', action: 'read', resources: ['/repo/a'], args, ...extra }), {});
  for (const v of [true, 'true', 1, 'yes']) {
    const r = bash({ command: 'cat a', dangerouslyDisableSandbox: v });
    assert.equal(r.level, 'high', JSON.stringify(v));
    assert.ok(r.reasons.some((x) => /dangerouslyDisableSandbox/.test(x)));
  }
  for (const v of [false, 'false', null, undefined]) assert.equal(bash({ command: 'cat a', dangerouslyDisableSandbox: v }).level, 'low', JSON.stringify(v));
  assert.equal(bash(['dangerouslyDisableSandbox']).level, 'low');
  assert.equal(assessRisk(req({ source: 'api', tool: 'Bash', action: 'read', resources: ['/repo/a'], args: { dangerouslyDisableSandbox: true } }), {}).level, 'low');
});
