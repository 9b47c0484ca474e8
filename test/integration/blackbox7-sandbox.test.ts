// Black-box, seventh wave: what `airlock exec --sandbox` lets the command see of Airlock,
// however the caller names the paths. The README promises "of Airlock only the task's own
// sockets … no ui.sock (the agent cannot approve itself), no database"; a working directory
// holding the home is refused (64). These tests reach the sandbox through the two other
// doors a caller has, `--ro PATH` and `--cwd` through a symbolic link, and through the
// data directory Airlock uses when AIRLOCK_HOME is not set. Real bwrap, real daemon.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { startDaemon, waitFor } from '../helpers/daemon';
import { airlock, closeBlackboxSession, openBlackboxSession, pendingList, type BlackboxSession } from '../helpers/blackbox';

let s: BlackboxSession;
let proj: string;
const hasBwrap = fs.existsSync('/usr/bin/bwrap') || fs.existsSync('/bin/bwrap');

before(async () => {
  s = await openBlackboxSession('bb7s-');
  proj = path.join(s.root, 'proj');
  fs.mkdirSync(proj);
});
after(() => closeBlackboxSession(s));

const env = (): NodeJS.ProcessEnv => ({ ...process.env, AIRLOCK_HOME: s.d.home });

/** Shell text that prints "visible P" or "hidden P" for each path: builtins only, a read (no prompt). */
function probe(paths: string[]): string {
  return `for p in ${paths.map((p) => `'${p}'`).join(' ')}; do if test -e "$p"; then echo "visible $p"; else echo "hidden $p"; fi; done`;
}

function visible(stdout: string): string[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('visible '))
    .map((l) => l.slice('visible '.length));
}

/** One line on stderr, no stack trace. */
function oneLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line, not:\n${stderr}`);
  return lines[0]!;
}

async function startTask(name: string): Promise<{ task: string; token: string }> {
  const r = await airlock(['task', 'start', name, '--json', '--cwd', proj], { env: env() });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as { task: string; token: string };
}

test('exec --sandbox --ro naming a directory that holds Airlock\'s home: ui.sock, the database and other tasks\' sockets stay hidden', { skip: !hasBwrap }, async () => {
  const other = await startTask('bb7 other task');
  const mine = await startTask('bb7 my task');
  const h = s.d.home;
  const secret = [path.join(h, 'ui.sock'), path.join(h, 'request.sock'), path.join(h, 'airlock.db'), path.join(h, 'keys'), path.join(h, 'tasks', other.task, 'request.sock')];
  // --ro of the directory holding AIRLOCK_HOME (as `--ro /tmp` would be for the default
  // socket directory <tmp>/airlock-<uid>), with and without a task.
  for (const withTask of [false, true]) {
    const r = await airlock(['exec', '--sandbox', '--ro', s.root, ...(withTask ? ['--task', mine.token] : []), '--', 'sh', '-c', probe([...secret, path.join(h, 'tasks', mine.task, 'request.sock')])], {
      env: env(),
      cwd: proj,
      timeoutMs: 60_000,
    });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const seen = visible(r.stdout);
    for (const p of secret) assert.ok(!seen.includes(p), `--ro ${s.root}${withTask ? ' --task' : ''}: ${p} must not be visible in the sandbox:\n${r.stdout}`);
    if (withTask) assert.ok(seen.includes(path.join(h, 'tasks', mine.task, 'request.sock')), `the task's own socket stays: ${r.stdout}`);
  }
  // --ro of Airlock's home itself.
  const r2 = await airlock(['exec', '--sandbox', '--ro', h, '--', 'sh', '-c', probe(secret)], { env: env(), cwd: proj, timeoutMs: 60_000 });
  assert.notEqual(r2.code, 0, `--ro ${h} must not share Airlock's home: ${r2.stdout}`);
  assert.deepEqual(visible(r2.stdout), [], r2.stdout);
});

test('exec --sandbox --cwd or --ro inside Airlock\'s home (keys/, another task\'s socket directory) is refused with exit 64, nothing asked or run', { skip: !hasBwrap }, async () => {
  const other = await startTask('bb7 victim task');
  const h = s.d.home;
  const marker = path.join(proj, 'ran');
  const cases: string[][] = [
    ['--cwd', path.join(h, 'keys')],
    ['--cwd', path.join(h, 'tasks')],
    ['--cwd', h],
    ['--ro', path.join(h, 'tasks', other.task)],
    ['--ro', path.join(h, 'ui.sock')],
  ];
  for (const c of cases) {
    const r = await airlock(['exec', '--sandbox', ...c, '--', 'sh', '-c', `${probe([path.join(h, 'keys', 'master.secret'), path.join(h, 'tasks', other.task, 'request.sock'), path.join(h, 'ui.sock')])}; : > '${marker}'`], {
      env: env(),
      cwd: proj,
      timeoutMs: 60_000,
    });
    assert.equal(r.code, 64, `${c.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.deepEqual(visible(r.stdout), [], r.stdout);
    const line = oneLine(r.stderr);
    assert.match(line, /Airlock's own/, line);
    assert.match(line, /nothing was run/, line);
    assert.equal(fs.existsSync(marker), false, 'nothing ran');
  }
  assert.deepEqual(await pendingList(s.ui), [], 'nothing was asked');
});

test('exec --sandbox --cwd through a symbolic link: to a directory holding the home is refused (64); to one holding Airlock\'s home, ui.sock stays hidden', { skip: !hasBwrap }, async () => {
  const fakeHome = path.join(s.root, 'userhome');
  fs.mkdirSync(path.join(fakeHome, '.ssh'), { recursive: true });
  fs.writeFileSync(path.join(fakeHome, '.ssh', 'id_ed25519'), 'PRIVATE KEY\n');
  const toHome = path.join(proj, 'home-link');
  fs.symlinkSync(fakeHome, toHome);
  const r = await airlock(['exec', '--sandbox', '--cwd', toHome, '--', 'sh', '-c', probe([path.join(toHome, '.ssh', 'id_ed25519')])], {
    env: { ...env(), HOME: fakeHome },
    cwd: proj,
    timeoutMs: 60_000,
  });
  assert.equal(r.code, 64, `a link to the home is the home: ${r.stdout}${r.stderr}`);
  assert.deepEqual(visible(r.stdout), [], r.stdout);
  assert.match(oneLine(r.stderr), /home directory/);

  // A link to the directory that holds AIRLOCK_HOME: the daemon's files, seen through it.
  const toRoot = path.join(proj, 'root-link');
  fs.symlinkSync(s.root, toRoot);
  const rel = path.relative(s.root, s.d.home);
  const through = ['ui.sock', 'airlock.db', 'request.sock'].map((f) => path.join(toRoot, rel, f));
  const r2 = await airlock(['exec', '--sandbox', '--cwd', toRoot, '--', 'sh', '-c', probe([...through, ...['ui.sock', 'airlock.db'].map((f) => path.join(s.d.home, f))])], {
    env: env(),
    cwd: proj,
    timeoutMs: 60_000,
  });
  assert.equal(r2.code, 0, r2.stdout + r2.stderr);
  assert.deepEqual(visible(r2.stdout), [], `nothing of Airlock's home through the link:\n${r2.stdout}`);
});

test('without AIRLOCK_HOME: a sandbox working directory that holds the data directory (~/.local) shows neither the database nor the keys', { skip: !hasBwrap }, async () => {
  const home = path.join(s.root, 'plainhome');
  const xdg = path.join(s.root, 'xdg');
  fs.mkdirSync(home, { mode: 0o700 });
  fs.mkdirSync(xdg, { mode: 0o700 });
  const denv = { AIRLOCK_HOME: '', HOME: home, XDG_RUNTIME_DIR: xdg, XDG_DATA_HOME: '' };
  const d = await startDaemon({ home: path.join(s.root, 'unused'), env: denv });
  try {
    const data = path.join(home, '.local', 'share', 'airlock');
    await waitFor(() => fs.existsSync(path.join(data, 'airlock.db')), 'the database in ~/.local/share/airlock');
    const cenv: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_RUNTIME_DIR: xdg };
    delete cenv.AIRLOCK_HOME;
    delete cenv.XDG_DATA_HOME;
    const secret = [path.join(data, 'airlock.db'), path.join(data, 'keys', 'master.secret'), path.join(data, 'secrets')];
    for (const cwd of [path.join(home, '.local'), path.join(home, '.local', 'share')]) {
      const r = await airlock(['exec', '--sandbox', '--', 'sh', '-c', probe(secret)], { env: cenv, cwd, timeoutMs: 60_000 });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.deepEqual(visible(r.stdout), [], `cwd ${cwd}: Airlock's data directory must stay out of the sandbox:\n${r.stdout}`);
    }
    const inside = await airlock(['exec', '--sandbox', '--', 'sh', '-c', probe(secret)], { env: cenv, cwd: data, timeoutMs: 60_000 });
    assert.equal(inside.code, 64, inside.stdout + inside.stderr);
    assert.deepEqual(visible(inside.stdout), []);
  } finally {
    await d.stop();
  }
});
