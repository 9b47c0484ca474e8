// Issue 11 item 3, "say what will happen": the consequence line for a delete (a real
// directory, measured by the real probe, capped), the diff for an Edit / MultiEdit /
// Write against the file on disk, the URL `git push` goes to (a real repository made by
// git), and "who" past Airlock's own processes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { classifyShell } from '../../main/core/classify/shell';
import { agentChain, commandLineOf, isOwnProcess } from '../../main/core/agent-chain';
import { applyFileTool, consequenceOf, deleteLine, redactUrl, sizeText } from '../../main/core/consequence';
import type { CoreRequest } from '../../main/core/request';
import { unifiedDiff } from '../../main/core/unified-diff';
import { createConsequenceProbe, parseGitConfig, PROBE_LIMITS, pushUrlOf } from '../../main/os/consequence-probe';

const probe = createConsequenceProbe();
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'al-cq-'));

function shell(command: string, cwd: string): CoreRequest {
  const c = classifyShell(command, cwd);
  return { source: 'exec', tool: 'exec', action: c.action, resource: c.resources[0] ?? null, resources: c.resources, summary: command, argsText: null, args: { command }, task: null, cwd, parts: c.parts, classifierRisk: c.riskReasons };
}

function claude(tool: string, file: string, input: Record<string, unknown>, cwd: string): CoreRequest {
  return { source: 'claude-code', tool, action: 'write', resource: file, resources: [file], summary: `${tool} ${file}`, argsText: null, args: { file_path: file, ...input }, task: null, cwd, classifierRisk: [] };
}

test('sizes read as a person says them', () => {
  assert.equal(sizeText(999), '999 B');
  assert.equal(sizeText(2_100_000), '2.1 MB');
  assert.equal(sizeText(34_500), '34.5 kB');
  assert.equal(sizeText(250_000_000), '250 MB');
});

test('rm -rf build: "deletes build/: 34 files, <size>" from the real directory', () => {
  const dir = tmp();
  fs.mkdirSync(path.join(dir, 'build', 'sub'), { recursive: true });
  for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(dir, 'build', `f${i}.js`), 'x'.repeat(1000));
  for (let i = 0; i < 4; i++) fs.writeFileSync(path.join(dir, 'build', 'sub', `g${i}.map`), 'y'.repeat(25_000));
  const c = consequenceOf(shell('rm -rf build', dir), probe);
  assert.deepEqual(c?.lines, ['deletes build/: 34 files, 130 kB']);
});

test('a delete walk is capped and then says "at least"; a symlink is not followed', () => {
  const dir = tmp();
  fs.mkdirSync(path.join(dir, 'big'));
  for (let i = 0; i < 60; i++) fs.writeFileSync(path.join(dir, 'big', `f${i}`), 'z');
  const capped = deleteLine(path.join(dir, 'big'), { ...probe, measure: (p) => {
    // The real walk with a small cap, as the daemon's is with 20,000.
    const full = probe.measure(p);
    return full.files > 50 ? { ...full, files: 50, bytes: 50, capped: true } : full;
  } }, dir);
  assert.equal(capped, 'deletes big/: at least 50 files, at least 50 B');
  fs.symlinkSync('/usr', path.join(dir, 'link'));
  assert.equal(consequenceOf(shell('rm -rf link', dir), probe)?.lines[0], 'deletes link: a symbolic link (what it points to stays)');
  assert.equal(consequenceOf(shell('rm -rf nothing-here', dir), probe)?.lines[0], 'deletes nothing-here: nothing there now');
});

test('the real probe stops a huge walk by its entry cap (bounded, says so)', () => {
  const dir = tmp();
  const old = PROBE_LIMITS.entries;
  PROBE_LIMITS.entries = 10;
  try {
    for (let i = 0; i < 25; i++) fs.writeFileSync(path.join(dir, `f${i}`), '');
    const m = probe.measure(dir);
    assert.equal(m.capped, true);
    assert.ok(m.files <= 10, String(m.files));
  } finally {
    PROBE_LIMITS.entries = old;
  }
});

test('Edit: a unified diff against the file on disk', () => {
  const dir = tmp();
  const file = path.join(dir, 'src.ts');
  fs.writeFileSync(file, ['a', 'b', 'c', 'const x = 1;', 'd', 'e', 'f', 'g'].join('\n') + '\n');
  const c = consequenceOf(claude('Edit', file, { old_string: 'const x = 1;', new_string: 'const x = 2;\nconst y = 3;' }, dir), probe);
  assert.equal(c?.diff?.text, ['--- a/src.ts', '+++ b/src.ts', '@@ -1,7 +1,8 @@', ' a', ' b', ' c', '-const x = 1;', '+const x = 2;', '+const y = 3;', ' d', ' e', ' f'].join('\n'));
  assert.equal(c?.diff?.added, 2);
  assert.equal(c?.diff?.removed, 1);
  assert.ok(c?.lines.includes('changes src.ts: +2 −1 lines'), JSON.stringify(c?.lines));
});

test('Edit that cannot apply says why (Claude Code would fail it), with no diff', () => {
  const dir = tmp();
  const file = path.join(dir, 'a.txt');
  fs.writeFileSync(file, 'one\none\n');
  assert.match(consequenceOf(claude('Edit', file, { old_string: 'one', new_string: 'two' }, dir), probe)?.lines[0] ?? '', /occurs 2 times/);
  assert.match(consequenceOf(claude('Edit', file, { old_string: 'zzz', new_string: 'two' }, dir), probe)?.lines[0] ?? '', /not found/);
  const all = consequenceOf(claude('Edit', file, { old_string: 'one', new_string: 'two', replace_all: true }, dir), probe);
  assert.equal(all?.diff?.removed, 2);
});

test('Write to a new file diffs against /dev/null; MultiEdit applies edits in order', () => {
  const dir = tmp();
  const file = path.join(dir, 'new.md');
  const w = consequenceOf(claude('Write', file, { content: '# Title\nbody\n' }, dir), probe);
  assert.match(w?.diff?.text ?? '', /^--- \/dev\/null\n\+\+\+ b\/new\.md\n@@ -0,0 \+1,2 @@\n\+# Title\n\+body$/);
  assert.ok(w?.lines.some((l) => /writes new\.md: \+2 −0 lines \(a new file\)/.test(l)), JSON.stringify(w?.lines));
  fs.writeFileSync(file, 'alpha\nbeta\n');
  assert.deepEqual(applyFileTool('MultiEdit', { edits: [{ old_string: 'alpha', new_string: 'beta2' }, { old_string: 'beta2', new_string: 'gamma' }] }, 'alpha\nbeta\n'), { after: 'gamma\nbeta\n' });
});

test('the diff text is capped; special files are never opened (a FIFO would hang the daemon)', () => {
  const d = unifiedDiff('', Array.from({ length: 1000 }, (_, i) => `l${i}`).join('\n'), 'x', { maxLines: 50 });
  assert.equal(d.truncated, true);
  assert.ok(d.text.split('\n').length <= 51);
  const dir = tmp();
  const fifo = path.join(dir, 'pipe');
  execFileSync('mkfifo', [fifo]);
  const c = consequenceOf(claude('Edit', fifo, { old_string: 'a', new_string: 'b' }, dir), probe);
  assert.match(c?.lines[0] ?? '', /not a regular file/);
  const environ = consequenceOf(claude('Edit', '/proc/self/environ', { old_string: 'PATH', new_string: 'X' }, dir), probe);
  assert.match(environ?.lines[0] ?? '', /kernel file/);
});

test('git push origin main: the URL from the real repository config (pushurl, insteadOf, worktree)', () => {
  const dir = tmp();
  const git = (...a: string[]) => execFileSync('git', ['-C', dir, ...a], { stdio: 'pipe' });
  git('init', '-q');
  git('remote', 'add', 'origin', 'https://github.com/acme/app.git');
  git('remote', 'add', 'mirror', 'gh:acme/mirror.git');
  git('config', 'url.https://github.com/.insteadOf', 'gh:');
  const c = consequenceOf(shell('git push origin main', dir), probe);
  assert.deepEqual(c?.lines, ['pushes to https://github.com/acme/app.git (remote origin)']);
  assert.match(consequenceOf(shell('git push mirror', dir), probe)?.lines[0] ?? '', /pushes to https:\/\/github\.com\/acme\/mirror\.git \(remote mirror\)/);
  git('remote', 'set-url', '--push', 'origin', 'git@evil.example:acme/app.git');
  assert.match(consequenceOf(shell('git push origin main', dir), probe)?.lines[0] ?? '', /pushes to git@evil\.example:acme\/app\.git \(remote origin\)/);
  // From a subdirectory and from a linked worktree (.git is a file there).
  fs.mkdirSync(path.join(dir, 'sub'));
  assert.match(consequenceOf(shell('git push origin main', path.join(dir, 'sub')), probe)?.lines[0] ?? '', /evil\.example/);
  git('-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-q', '--allow-empty', '-m', 'x');
  const wt = path.join(tmp(), 'wt');
  git('worktree', 'add', '-q', wt);
  assert.match(consequenceOf(shell('git push origin main', wt), probe)?.lines[0] ?? '', /evil\.example/);
  assert.match(consequenceOf(shell('git push nope main', dir), probe)?.lines[0] ?? '', /remote nope \(no URL found/);
});

test('git config parsing: first url wins, quoted values, comments; passwords are never shown', () => {
  const cfg = parseGitConfig('[remote "o"]\n  url = "https://u:secret@h.example/x.git" ; c\n  url = https://second/x\n[url "ssh://git@h/"]\n  pushInsteadOf = https://h2/\n');
  assert.equal(pushUrlOf(cfg, 'o'), 'https://u:secret@h.example/x.git');
  assert.equal(redactUrl('https://u:secret@h.example/x.git'), 'https://u:***@h.example/x.git');
  assert.equal(pushUrlOf(parseGitConfig('[remote "o"]\nurl = https://h2/r.git\n[url "ssh://git@h/"]\npushInsteadOf = https://h2/\n'), 'o'), 'ssh://git@h/r.git');
  const dir = tmp();
  execFileSync('git', ['-C', dir, 'init', '-q']);
  execFileSync('git', ['-C', dir, 'remote', 'add', 'origin', 'https://bob:hunter2@git.example/r.git']);
  const line = consequenceOf(shell('git push', dir), probe)?.lines[0] ?? '';
  assert.equal(line, 'pushes to https://bob:***@git.example/r.git (remote origin)');
});

test('a transfer names its destination URL', () => {
  const c = consequenceOf(shell('curl -T out.tgz https://upload.example/put?x=1', '/tmp'), probe);
  assert.ok(c?.lines.some((l) => l.includes('https://upload.example/put?x=1')), JSON.stringify(c));
  assert.match(consequenceOf(shell('scp a.tgz deploy@host.example:/srv/', '/tmp'), probe)?.lines[0] ?? '', /host\.example/);
});

test("who: Airlock's own processes are skipped, the agent's are shown with full command lines", () => {
  const own = { roots: ['/opt/airlock/bin', '/opt/airlock/dist'] };
  const tree = [
    { pid: 40, exe: '/usr/bin/node', argv: ['node', '/opt/airlock/bin/airlock', 'hook', 'claude-code'] },
    { pid: 39, exe: '/bin/sh', argv: ['/bin/sh', '-c', 'airlock hook claude-code'] },
    { pid: 30, exe: '/usr/bin/node', argv: ['claude', '--dangerously-skip-permissions', 'fix the bug'] },
    { pid: 2, exe: '/bin/bash', argv: ['-bash'] },
  ];
  const chain = agentChain({ pid: 40, uid: 1000, exe: '/usr/bin/node', argv: tree[0]!.argv, tree }, own);
  assert.deepEqual(chain.map((n) => n.pid), [30, 2]);
  assert.equal(commandLineOf(chain[0]!), "claude --dangerously-skip-permissions 'fix the bug'");
  // An agent cannot hide behind a name: only Airlock's install paths and `airlock` count.
  assert.equal(isOwnProcess({ pid: 1, exe: '/usr/bin/node', argv: ['node', '/home/u/evil/airlock-lookalike.js'] }, own), false);
  assert.equal(isOwnProcess({ pid: 1, exe: '/usr/bin/node', argv: ['node', '/opt/airlock/dist/main/cli/index.js', 'exec', '--', 'rm'] }, own), true);
  // Only the near end is skipped: Airlock's processes further up stay visible.
  const mixed = [tree[2]!, tree[0]!];
  assert.deepEqual(agentChain({ pid: 30, uid: 1, exe: null, argv: [], tree: mixed }, own).map((n) => n.pid), [30, 40]);
});
