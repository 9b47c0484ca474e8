// Black-box: the Claude Code hook as a user has it, written from README.md, docs/agents.md and
// SECURITY.md alone. `airlock hook claude-code --install` (native client, and `--install --node`)
// into a temporary HOME; the command it wrote into settings.json is run with `/bin/sh -c` exactly
// as Claude Code runs it — stdin a PreToolUse JSON, an environment of PATH and HOME only — from a
// long-lived parent process standing in for Claude Code (a second parent stands in for another
// program that knows the session id). Then: hard links as SECURITY.md promises them, a
// CLAUDE_CONFIG_DIR the hook reported stays guarded across a daemon restart, and the sixth-wave
// classifier claims (`for PATH in .; do ls; done` …) through `airlock exec --shell` with a planted
// ./ls that must not run.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { startDaemon, waitFor, type Daemon } from '../helpers/daemon';
import { Wire, airlock, closeBlackboxSession, pendingList, waitPending, type Pending, type Run } from '../helpers/blackbox';

let d: Daemon;
let ui: Wire;
let root: string;
let env: NodeJS.ProcessEnv;
let work: string;

interface HookOut {
  hookSpecificOutput?: { hookEventName?: string; permissionDecision?: string; permissionDecisionReason?: string };
}
interface HookRun {
  code: number | null;
  out: string;
  err: string;
}

// The stand-in for Claude Code: one Node process that lives for the whole file and runs each
// hook call as `/bin/sh -c COMMAND` (as Claude Code runs a `command` hook), stdin the call's JSON.
const PARENT = `
const { spawn } = require('node:child_process');
const rl = require('node:readline').createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const m = JSON.parse(line);
  const p = spawn('/bin/sh', ['-c', m.cmd], { cwd: m.cwd, env: m.env || process.env });
  let out = '', err = '';
  p.stdout.on('data', (b) => (out += b));
  p.stderr.on('data', (b) => (err += b));
  p.stdin.on('error', () => {});
  p.on('close', (code) => process.stdout.write(JSON.stringify({ id: m.id, code, out, err }) + '\\n'));
  p.stdin.end(m.input);
});
rl.on('close', () => process.exit(0));
`;

class FakeClaude {
  private buf = '';
  private next = 1;
  private readonly waiting = new Map<number, (r: HookRun) => void>();
  private constructor(readonly proc: ChildProcessWithoutNullStreams) {
    proc.stdout.on('data', (b: Buffer) => {
      this.buf += b.toString();
      for (let nl = this.buf.indexOf('\n'); nl >= 0; nl = this.buf.indexOf('\n')) {
        const m = JSON.parse(this.buf.slice(0, nl)) as HookRun & { id: number };
        this.buf = this.buf.slice(nl + 1);
        this.waiting.get(m.id)?.(m);
        this.waiting.delete(m.id);
      }
    });
  }
  static start(script: string, home: string, extraEnv: Record<string, string> = {}): FakeClaude {
    // Only what a user's shell would give Claude Code: PATH, HOME and the AIRLOCK_HOME the user
    // exports (the daemon runs with it; the install pinned it), none of the test runner's variables.
    const p = spawn(process.execPath, [script], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, AIRLOCK_HOME: d.home, ...extraEnv }, stdio: ['pipe', 'pipe', 'pipe'] });
    return new FakeClaude(p);
  }
  /** Runs the hook command once; bounded (Claude Code gives a hook 600 s, a test far less). */
  run(cmd: string, input: string, timeoutMs = 60_000): Promise<HookRun> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => (this.waiting.delete(id), reject(new Error(`hook call ${id}: no answer in ${timeoutMs} ms`))), timeoutMs);
      this.waiting.set(id, (r) => (clearTimeout(t), resolve(r)));
      this.proc.stdin.write(JSON.stringify({ id, cmd, cwd: work, input }) + '\n');
    });
  }
  stop(): void {
    this.proc.stdin.end();
    setTimeout(() => this.proc.kill('SIGKILL'), 2000).unref();
  }
}

function hookInput(session: string, tool: string, input: Record<string, unknown>, event = 'PreToolUse'): string {
  return JSON.stringify({ session_id: session, transcript_path: path.join(root, `${session}.jsonl`), cwd: work, permission_mode: 'default', hook_event_name: event, tool_name: tool, tool_input: input });
}

function decision(r: HookRun): string | undefined {
  assert.equal(r.code, 0, `the hook exits 0: ${r.code} ${r.err}`);
  return (JSON.parse(r.out) as HookOut).hookSpecificOutput?.permissionDecision;
}

function reason(r: HookRun): string {
  return String((JSON.parse(r.out) as HookOut).hookSpecificOutput?.permissionDecisionReason);
}

/** Either a prompt `pred` accepts shows up, or `run` finishes without one (the silent case). */
async function promptOrDone<T>(run: Promise<T>, pred: (p: Pending) => boolean, what: string): Promise<{ prompt?: Pending; done?: T }> {
  let done: T | undefined;
  let finished = false;
  void run.then((r) => ((done = r), (finished = true)), () => (finished = true));
  let prompt: Pending | undefined;
  await waitFor(
    async () => {
      if (finished) return true;
      prompt = (await pendingList(ui)).find(pred);
      return prompt !== undefined;
    },
    what,
    60_000,
    50,
  );
  return prompt ? { prompt } : { done };
}

/** `scope: 'task'` takes the prompt's suggested pattern, as "allow for this task" (`t`) does. */
async function decide(p: Pending, dec: 'allow' | 'deny', scope: 'once' | 'task' = 'once'): Promise<void> {
  const suggestion = (p as Pending & { suggestion?: { tool?: string; resource?: string } }).suggestion;
  const pattern = scope === 'task' && suggestion ? { tool: suggestion.tool, resource: suggestion.resource } : undefined;
  const r = await ui.call('pending.decide', { id: p.id, decision: dec, scope, ...(pattern ? { pattern } : {}) });
  assert.equal(r.error, undefined, JSON.stringify(r));
}

async function taskNamesWith(marker: string): Promise<number> {
  const names = JSON.stringify(await ui.ok<unknown>('tasks.list', {}));
  return names.split(marker).length - 1;
}

interface Variant {
  name: string;
  tag: string;
  flags: string[];
  home: string;
  cmd: string;
  claude: FakeClaude;
  other: FakeClaude;
}
const variants: Variant[] = [];
let parentScript: string;

let userHome: string;

before(async () => {
  // One user: the daemon and Claude Code share a HOME (a temporary one), as on a real machine.
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'bbh-'));
  userHome = path.join(root, 'home');
  fs.mkdirSync(userHome, { mode: 0o700 });
  d = await startDaemon({ home: path.join(root, 'h'), env: { HOME: userHome } });
  ui = await Wire.open(d.uiSock);
  work = path.join(root, 'proj');
  fs.mkdirSync(path.join(work, 'src'), { recursive: true });
  fs.writeFileSync(path.join(work, 'src', 'a.ts'), 'export const a = 1;\n');
  env = { ...process.env, AIRLOCK_HOME: d.home, HOME: userHome };
  for (const k of ['AIRLOCK_TASK', 'AIRLOCK_TASK_TOKEN', 'AIRLOCK_REQUEST_SOCK', 'AIRLOCK_HOOK_HOME', 'CLAUDE_CONFIG_DIR']) delete env[k];
  parentScript = path.join(root, 'claude.js');
  fs.writeFileSync(parentScript, PARENT);
  for (const [name, tag, flags] of [['native', 'na', []], ['node', 'no', ['--node']]] as const) {
    // Installed one after the other into the same settings.json: the second updates the entry
    // in place; each command line, as written, is kept to run.
    const home = userHome;
    const i = await airlock(['hook', 'claude-code', '--install', ...flags], { env: { ...env, HOME: home }, cwd: work });
    assert.equal(i.code, 0, i.stderr);
    const s = JSON.parse(fs.readFileSync(path.join(home, '.claude', 'settings.json'), 'utf8')) as { hooks: { PreToolUse: { matcher: string; hooks: { type: string; command: string; timeout?: number }[] }[] } };
    const entry = s.hooks.PreToolUse.find((e) => e.hooks.some((h) => h.type === 'command'));
    assert.ok(entry, JSON.stringify(s));
    assert.equal(entry.matcher, '*');
    const cmd = entry.hooks[0]!.command;
    if (name === 'native' && !/airlock-hook/.test(cmd)) continue; // no C compiler: --install wrote the Node hook
    if (name === 'node') assert.doesNotMatch(cmd, /airlock-hook'/, '--node installs the Node hook');
    assert.equal(s.hooks.PreToolUse.length, 1, 'installing again updates the one entry in place');
    variants.push({ name, tag, flags: [...flags], home, cmd, claude: FakeClaude.start(parentScript, home), other: FakeClaude.start(parentScript, home) });
  }
});
after(async () => {
  for (const v of variants) {
    v.claude.stop();
    v.other.stop();
  }
  await closeBlackboxSession({ root, d, ui });
});

const sid = (v: Variant, k: string): string => `${v.tag}-${k}`.padEnd(8, 'x').slice(0, 8) + '-4d1c-9e2b-session';

for (const name of ['native', 'node']) {
  const V = (): Variant | undefined => variants.find((x) => x.name === name);

  test(`${name} hook, installed: a Write "allowed for this task" makes the next Write of the session silent; PostToolUse prints nothing`, async (t) => {
    const v = V();
    if (!v) return t.skip('no native client built (no C compiler)');
    const s = sid(v, 'allw');
    const first = v.claude.run(v.cmd, hookInput(s, 'Write', { file_path: path.join(work, 'src', `${name}-1.ts`), content: 'x' }));
    const p = await waitPending(ui, (x) => x.source === 'claude-code' && x.resource === path.join(work, 'src', `${name}-1.ts`), 'the first Write prompt');
    assert.equal(p.action, 'write');
    assert.match(JSON.stringify(p.task), /\S/, 'a session is a task');
    await decide(p, 'allow', 'task');
    assert.equal(decision(await first), 'allow');
    const second = await promptOrDone(
      v.claude.run(v.cmd, hookInput(s, 'Write', { file_path: path.join(work, 'src', `${name}-2.ts`), content: 'y' })),
      (x) => x.resource === path.join(work, 'src', `${name}-2.ts`),
      'the second Write',
    );
    if (second.prompt) await decide(second.prompt, 'deny');
    assert.equal(second.prompt, undefined, 'the second Write of the same session is covered by the task grant');
    assert.equal(decision(second.done!), 'allow');
    assert.equal(await taskNamesWith(`(${s.slice(0, 8)})`), 1, 'one task for the session, named after it');

    const post = await v.claude.run(v.cmd, hookInput(s, 'Write', { file_path: path.join(work, 'src', `${name}-1.ts`), content: 'x' }, 'PostToolUse'));
    assert.equal(post.code, 0, post.err);
    assert.equal(post.out, '', 'PostToolUse: nothing on stdout');
  });

  test(`${name} hook, installed: three parallel first calls of a new session make one task`, async (t) => {
    const v = V();
    if (!v) return t.skip('no native client built (no C compiler)');
    const s = sid(v, 'par3');
    const runs = await Promise.all([0, 1, 2].map(() => v.claude.run(v.cmd, hookInput(s, 'Read', { file_path: path.join(work, 'src', 'a.ts') }))));
    for (const r of runs) assert.equal(decision(r), 'allow', r.out);
    assert.equal(await taskNamesWith(`(${s.slice(0, 8)})`), 1, 'one task for the three calls');
  });

  test(`${name} hook, installed: the same session id from another parent process is not that session's task`, async (t) => {
    const v = V();
    if (!v) return t.skip('no native client built (no C compiler)');
    const s = sid(v, 'allw'); // the session given "allow for this task" above
    const target = path.join(work, 'src', `${name}-other.ts`);
    const otherRun = v.other.run(v.cmd, hookInput(s, 'Write', { file_path: target, content: 'z' }));
    const res = await promptOrDone(otherRun, (x) => x.resource === target, 'the other parent’s Write');
    assert.ok(res.prompt, `another process naming the session must not use its grants: ${JSON.stringify(res.done)}`);
    const own = await promptOrDone(v.claude.run(v.cmd, hookInput(s, 'Write', { file_path: path.join(work, 'src', `${name}-3.ts`), content: 'w' })), () => false, 'the owner’s Write');
    assert.equal(decision(own.done!), 'allow', 'the owner keeps its session task');
    await decide(res.prompt, 'deny');
    assert.equal(decision(await otherRun), 'deny');
    assert.equal(await taskNamesWith(`(${s.slice(0, 8)})`), 2, 'the other process got a task of its own');
  });
}

test('installed hook run where AIRLOCK_HOME is not exported: the pinned daemon decides (a Write reaches the human), and an XDG_RUNTIME_DIR or TMPDIR leading to a fake is never used', async () => {
  // A fake daemon of the agent's, where XDG_RUNTIME_DIR and TMPDIR would lead the hook.
  const fakeRoot = fs.mkdtempSync(path.join(root, 'fake-'));
  const xdg = path.join(fakeRoot, 'xdg');
  fs.mkdirSync(path.join(xdg, 'airlock'), { recursive: true, mode: 0o700 });
  const tmp = path.join(fakeRoot, 'tmp');
  fs.mkdirSync(path.join(tmp, `airlock-${process.getuid!()}`), { recursive: true, mode: 0o700 });
  let heard = 0;
  const fakes = [path.join(xdg, 'airlock', 'request.sock'), path.join(tmp, `airlock-${process.getuid!()}`, 'request.sock')].map((sock) => {
    const srv = net.createServer((c) => {
      heard++;
      c.destroy();
    });
    srv.listen(sock);
    return srv;
  });
  try {
    for (const v of variants) {
      for (const [key, what, extra] of [
        ['bare', 'nothing set', { AIRLOCK_HOME: '' }],
        ['bxdg', 'XDG_RUNTIME_DIR', { AIRLOCK_HOME: '', XDG_RUNTIME_DIR: xdg }],
        ['btmp', 'TMPDIR', { AIRLOCK_HOME: '', TMPDIR: tmp }],
      ] as const) {
        // A Claude Code started from a launcher or another shell: the user's AIRLOCK_HOME is not there.
        const bare = FakeClaude.start(parentScript, v.home, extra);
        try {
          const target = path.join(work, 'src', `${v.name}-${key}.ts`);
          const run = bare.run(v.cmd, hookInput(sid(v, key), 'Write', { file_path: target, content: 'x' }));
          const res = await promptOrDone(run, (x) => x.resource === target, `${v.name} (${what}): the Write prompt`);
          assert.ok(res.prompt, `${v.name} (${what}): the daemon the hook was installed for must ask the human: ${JSON.stringify(res.done)}`);
          await decide(res.prompt, 'deny');
          const r = await run;
          assert.equal(decision(r), 'deny', `${v.name} (${what}): ${r.out}`);
          assert.match(reason(r), /^Airlock: /);
        } finally {
          bare.stop();
        }
      }
    }
    assert.equal(heard, 0, 'the fake daemons were never connected to');
  } finally {
    for (const f of fakes) f.close();
  }
});

test('installed hook, daemon not running where it was installed for: "ask", the reason names the socket and what to do', async () => {
  const home = fs.realpathSync(d.home);
  for (const v of variants) {
    // The pin names a directory where no daemon listens (it moved): asked, never another socket.
    const moved = v.cmd.replace(/export AIRLOCK_HOOK_HOME='[^']*'/, `export AIRLOCK_HOOK_HOME='${path.join(root, 'moved')}'`);
    assert.notEqual(moved, v.cmd);
    const bare = FakeClaude.start(parentScript, v.home, { AIRLOCK_HOME: '' });
    try {
      const r = await bare.run(moved, hookInput(sid(v, 'gone'), 'Read', { file_path: path.join(work, 'src', 'a.ts') }));
      assert.equal(decision(r), 'ask', r.out);
      assert.ok(reason(r).includes(`the Airlock daemon is not running (nothing answers at ${path.join(root, 'moved', 'request.sock')}, where the hook was installed to find it; if the daemon now runs with another AIRLOCK_HOME, re-run \`airlock hook claude-code --install\``), `${v.name}: ${reason(r)}`);
      assert.ok(!reason(r).includes(home));
    } finally {
      bare.stop();
    }
  }
});

test('hard links: a Write of a name that is a hard link to ~/.claude/settings.json asks critical and says so; two names of an ordinary file stay covered', async (t) => {
  const v = variants[0];
  if (!v) return t.skip('no hook installed');
  const s = sid(v, 'link');
  // "allow for this task" on the project's src/ first.
  const first = v.claude.run(v.cmd, hookInput(s, 'Write', { file_path: path.join(work, 'src', 'link-0.ts'), content: 'x' }));
  await decide(await waitPending(ui, (x) => x.resource === path.join(work, 'src', 'link-0.ts'), 'the first Write'), 'allow', 'task');
  assert.equal(decision(await first), 'allow');

  const settings = path.join(v.home, '.claude', 'settings.json');
  const notes = path.join(work, 'src', 'notes.json');
  fs.linkSync(settings, notes);
  const w = await promptOrDone(v.claude.run(v.cmd, hookInput(s, 'Write', { file_path: notes, content: '{}' })), (x) => x.resource === notes || JSON.stringify(x.resource).includes('notes.json'), 'the Write of the linked name');
  assert.ok(w.prompt, `a hard link to the settings is not covered by the workspace grant: ${JSON.stringify(w.done)}`);
  assert.equal(w.prompt.risk.level, 'critical', JSON.stringify(w.prompt.risk));
  assert.match(JSON.stringify(w.prompt.risk.reasons) + JSON.stringify(w.prompt.summary), /hard link/i);
  assert.ok(JSON.stringify(w.prompt.resource).includes(JSON.stringify(settings).slice(1, -1)) || JSON.stringify(w.prompt).includes('.claude/settings.json'), 'the settings file is named');
  await decide(w.prompt, 'deny');

  // Control: an ordinary file with two names (both in the project) is still an ordinary write.
  const twin = path.join(work, 'src', 'a-twin.ts');
  fs.linkSync(path.join(work, 'src', 'a.ts'), twin);
  const c = await promptOrDone(v.claude.run(v.cmd, hookInput(s, 'Write', { file_path: twin, content: 'export const a = 2;\n' })), (x) => x.resource === twin, 'the Write of the twin');
  if (c.prompt) await decide(c.prompt, 'deny');
  assert.equal(c.prompt, undefined, 'two names of an ordinary file stay covered by the task grant');
  assert.equal(decision(c.done!), 'allow');
});

test('hard links: Claude Code run with another HOME keeps its settings there; a hard link to them is asked critical too', async (t) => {
  const v = variants[0];
  if (!v) return t.skip('no hook installed');
  // `HOME=/elsewhere claude`: that Claude Code reads /elsewhere/.claude/settings.json (the hook
  // sends its HOME with each call; `~` in a path is that home).
  const other = path.join(root, 'other-home');
  fs.mkdirSync(path.join(other, '.claude'), { recursive: true, mode: 0o700 });
  const settings = path.join(other, '.claude', 'settings.json');
  fs.writeFileSync(settings, fs.readFileSync(path.join(v.home, '.claude', 'settings.json')));
  const linked = path.join(work, 'src', 'other-notes.json');
  fs.linkSync(settings, linked);
  const elsewhere = FakeClaude.start(parentScript, other);
  try {
    const run = elsewhere.run(v.cmd, hookInput(sid(v, 'ohom'), 'Write', { file_path: linked, content: '{}' }));
    const p = await waitPending(ui, (x) => x.resource === linked, 'the Write of the linked name');
    await decide(p, 'deny');
    assert.equal(decision(await run), 'deny');
    assert.equal(p.risk.level, 'critical', JSON.stringify(p.risk));
    assert.match(JSON.stringify(p.risk.reasons), /hard link/i);
  } finally {
    elsewhere.stop();
  }
});

test("hard links: Claude Code run with another HOME keeps its global config (.claude.json, beside .claude) there; a hard link to it is asked critical too", async (t) => {
  const v = variants[0];
  if (!v) return t.skip('no hook installed');
  // `HOME=/elsewhere claude` reads /elsewhere/.claude.json (MCP servers it starts, trusted projects).
  const other = path.join(root, 'other-home-json');
  fs.mkdirSync(path.join(other, '.claude'), { recursive: true, mode: 0o700 });
  const global = path.join(other, '.claude.json');
  fs.writeFileSync(global, '{"mcpServers":{}}\n');
  const linked = path.join(work, 'src', 'other-global.json');
  fs.linkSync(global, linked);
  const elsewhere = FakeClaude.start(parentScript, other);
  try {
    // A Write of the linked name, and of the file itself by the path that Claude Code's `~` names.
    for (const [key, file, shown] of [['ojs1', linked, linked], ['ojs2', '~/.claude.json', global]] as const) {
      const run = elsewhere.run(v.cmd, hookInput(sid(v, key), 'Write', { file_path: file, content: '{"mcpServers":{"x":{"command":"sh"}}}' }));
      const p = await waitPending(ui, (x) => x.resource === shown, `the Write of ${file}`);
      await decide(p, 'deny');
      assert.equal(decision(await run), 'deny');
      assert.equal(p.risk.level, 'critical', `${file}: ${JSON.stringify(p.risk)}`);
      if (file === linked) assert.match(JSON.stringify(p.risk.reasons), /hard link/i);
    }
    assert.equal(fs.readFileSync(global, 'utf8'), '{"mcpServers":{}}\n');
  } finally {
    elsewhere.stop();
  }
});

test('sixth wave through `airlock exec --shell`: a loop variable named PATH (and wait -p, printf -v) asks, and the planted ./ls never runs', async () => {
  const dir = path.join(root, 'planted');
  fs.mkdirSync(dir);
  const marker = path.join(root, 'planted-ran');
  fs.writeFileSync(path.join(dir, 'ls'), `#!/bin/sh\necho ran >> '${marker}'\n`, { mode: 0o755 });
  // Control: a plain `ls` is a silent read and runs the real ls.
  const ls = await airlock(['exec', '--shell', '--', 'ls'], { env, cwd: dir });
  assert.equal(ls.code, 0, ls.stderr);
  assert.match(ls.stdout, /^ls$/m);
  assert.ok(!fs.existsSync(marker));
  for (const cmd of ['for PATH in .; do ls; done', 'select PATH in .; do ls; break; done', 'wait -p PATH; ls', 'printf -vPATH .; ls']) {
    const res = await promptOrDone<Run>(airlock(['exec', '--shell', '--', cmd], { env, cwd: dir, input: '1\n', timeoutMs: 60_000 }), (x) => x.source === 'exec' && JSON.stringify(x).includes(cmd.slice(0, 12)), `the prompt for ${cmd}`);
    assert.ok(res.prompt, `${cmd}: must ask, it ran silently: ${JSON.stringify(res.done)}`);
    assert.notEqual(res.prompt.action, 'read', cmd);
    await decide(res.prompt, 'deny');
    assert.ok(!fs.existsSync(marker), `${cmd}: ./ls ran`);
  }
});

test('CLAUDE_CONFIG_DIR the hook reported stays guarded after the daemon restarts; daemon stopped → "ask" with a reason; restarted → the hooks answer', async () => {
  const ccd = path.join(root, 'ccd');
  fs.mkdirSync(ccd);
  const v = variants[0]!;
  const g = await airlock(['grants', 'add', '-a', 'write', '-r', `${root}/**`, '--note', 'bb: every write under the test root'], { env });
  assert.equal(g.code, 0, g.stderr);
  const writeReq = async (resource: string): Promise<{ result?: { decision: string }; error?: unknown }> => {
    const agent = await Wire.open(d.requestSock);
    try {
      return (await agent.call('request', { source: 'api', tool: 'fs/write', action: 'write', resource, summary: `write ${resource}` }, 60_000)) as { result?: { decision: string } };
    } finally {
      agent.close();
    }
  };
  const target = path.join(ccd, 'settings.json');
  // Control: before Claude Code ran with the variable, that file is an ordinary one the grant covers.
  assert.equal((await writeReq(target)).result?.decision, 'allow', 'control: not guarded before the hook reported the directory');
  const withCcd = FakeClaude.start(parentScript, v.home, { CLAUDE_CONFIG_DIR: ccd });
  try {
    const r = await withCcd.run(v.cmd, hookInput(sid(v, 'ccdr'), 'Read', { file_path: path.join(work, 'src', 'a.ts') }));
    assert.equal(decision(r), 'allow');
  } finally {
    withCcd.stop();
  }

  await d.stop();
  for (const x of variants) {
    const r = await x.claude.run(x.cmd, hookInput(sid(x, 'down'), 'Write', { file_path: path.join(work, 'src', 'down.ts'), content: 'x' }));
    assert.equal(decision(r), 'ask', `${x.name}: no daemon → ask`);
    assert.match(reason(r), /Airlock|daemon|serve/i);
  }
  ui.close();
  d = await d.restart();
  ui = await Wire.open(d.uiSock);
  for (const x of variants) {
    const r = await x.claude.run(x.cmd, hookInput(sid(x, 'back'), 'Read', { file_path: path.join(work, 'src', 'a.ts') }));
    assert.equal(decision(r), 'allow', `${x.name}: the restarted daemon answers the same installed command`);
  }

  // A plain request without the variable anywhere: the remembered directory is still Claude Code's.
  const free = path.join(root, 'not-ccd', 'settings.json');
  assert.equal((await writeReq(free)).result?.decision, 'allow', 'control: the write grant covers an ordinary settings.json');
  const pending = writeReq(target);
  const p = await waitPending(ui, (x) => x.resource === target, 'the remembered CLAUDE_CONFIG_DIR write');
  assert.equal(p.risk.level, 'critical', JSON.stringify(p.risk));
  await decide(p, 'deny');
  assert.equal((await pending).result?.decision, 'deny');
});
