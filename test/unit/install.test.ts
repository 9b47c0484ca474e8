// The first ten minutes (issue 12), the fast parts: the lockfile is complete for npm ci
// on every platform, engines match what the dependencies ask, Electron's download is
// optional, and the messages of the install and of `npm start` say what to do — never
// Electron's own advice to delete node_modules. The slow part, a real install in a fresh
// clone, is test/integration/fresh-clone.test.ts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { REPO } from '../helpers/daemon';

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  engines?: { node?: string };
  link?: boolean;
}
const lock = JSON.parse(fs.readFileSync(path.join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
  engines: { node: string };
  scripts: Record<string, string>;
  allowScripts?: Record<string, boolean>;
  overrides?: Record<string, string>;
  devDependencies: Record<string, string>;
};
const semver = require('semver') as { satisfies(v: string, r: string): boolean; minVersion(r: string): { version: string } | null };

/** Node's lookup: the nearest node_modules/<name> walking up from `from`. */
function resolves(from: string, name: string): boolean {
  let dir = from;
  for (;;) {
    if (lock.packages[`${dir ? `${dir}/` : ''}node_modules/${name}`]) return true;
    if (dir === '') return false;
    const i = dir.lastIndexOf('node_modules/');
    dir = i <= 0 ? '' : dir.slice(0, i - 1);
  }
}

test('npm ci: every dependency and optional dependency of every package has a lockfile entry (all platforms)', () => {
  const missing: string[] = [];
  for (const [where, e] of Object.entries(lock.packages)) {
    if (e.link) continue;
    for (const name of [...Object.keys(e.dependencies ?? {}), ...Object.keys(e.optionalDependencies ?? {})]) {
      if (!resolves(where, name)) missing.push(`${where || '(root)'} → ${name}`);
    }
  }
  assert.deepEqual(missing, [], 'npm ci refuses a lockfile with these missing ("Missing: … from lock file")');
  for (const p of ['darwin-arm64', 'win32-x64-msvc', 'linux-riscv64-gnu']) {
    assert.ok(lock.packages[`node_modules/@unrs/resolver-binding-${p}`], `unrs-resolver's ${p} binding is listed`);
  }
});

test('engines: every version the engines field allows satisfies every dependency\'s engines', () => {
  const floors = pkg.engines.node.split('||').map((r) => semver.minVersion(r.trim())!.version);
  assert.ok(floors.length >= 2, pkg.engines.node);
  const wrong: string[] = [];
  for (const [where, e] of Object.entries(lock.packages)) {
    const want = e.engines?.node;
    if (!want || !where) continue;
    for (const v of floors) if (!semver.satisfies(v, want)) wrong.push(`${where}@${e.version} wants node ${want}; ${v} is allowed`);
  }
  assert.deepEqual(wrong, []);
  assert.equal(pkg.overrides?.['@electron/rebuild'], '3.7.2', '@electron/rebuild 4 wants Node 22.12+: pinned, and the README says so');
  assert.match(fs.readFileSync(path.join(REPO, 'README.md'), 'utf8'), /@electron\/rebuild` is pinned to 3\.7\.2/);
});

test('Electron\'s binary download is optional: its own install script is denied, Airlock\'s postinstall tolerates failure', () => {
  assert.equal(pkg.allowScripts?.electron, false);
  assert.equal(pkg.allowScripts?.['better-sqlite3'], true, 'native builds still run');
  assert.equal(pkg.scripts.postinstall, 'node scripts/postinstall.mjs');
  assert.equal(pkg.scripts.start, 'node scripts/start.mjs');
  assert.ok(pkg.devDependencies.electron, 'electron stays a devDependency (never shipped inside the app)');
  const ci = fs.readFileSync(path.join(REPO, '.ci', 'run'), 'utf8');
  assert.match(ci, /^if ! npm ci /m, '.ci/run uses npm ci');
  assert.doesNotMatch(ci, /^[^#]*ELECTRON_SKIP_BINARY_DOWNLOAD/m, 'CI installs the way the README says, without the variable');
  assert.match(ci, /scripts\/install-system-deps\.sh/);
  assert.match(fs.readFileSync(path.join(REPO, 'scripts', 'install-system-deps.sh'), 'utf8'), /\/usr\/bin\/python3 -c 'import paramiko'/);
  assert.match(fs.readFileSync(path.join(REPO, 'native', 'peercred.c'), 'utf8'), /#include <stdio\.h>/);
});

/** A throw-away checkout: Airlock's scripts and a fake electron package. */
function fakeRoot(install: string | null): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'al-install-'));
  fs.cpSync(path.join(REPO, 'scripts'), path.join(root, 'scripts'), { recursive: true });
  const el = path.join(root, 'node_modules', 'electron');
  fs.mkdirSync(el, { recursive: true });
  fs.writeFileSync(path.join(el, 'package.json'), JSON.stringify({ name: 'electron', version: '41.7.1' }));
  if (install !== null) fs.writeFileSync(path.join(el, 'install.js'), install);
  return root;
}
const node = (root: string, args: string[], env: NodeJS.ProcessEnv = {}) => {
  const clean = { ...process.env };
  delete clean.ELECTRON_SKIP_BINARY_DOWNLOAD;
  return spawnSync(process.execPath, args, { cwd: root, env: { ...clean, ...env }, encoding: 'utf8', timeout: 60_000 });
};
const FAILING = "console.error('RequestError: getaddrinfo ENOTFOUND github.com'); process.exit(1);";
const WORKING = "const fs=require('fs');fs.mkdirSync(__dirname+'/dist');fs.writeFileSync(__dirname+'/dist/electron','');fs.writeFileSync(__dirname+'/path.txt','electron');";

test('postinstall: a failed download leaves the install successful and says what to run instead; --strict fails', () => {
  const root = fakeRoot(FAILING);
  let r = node(root, ['scripts/postinstall.mjs']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /Electron's binary could not be downloaded \(RequestError: getaddrinfo ENOTFOUND github\.com\)/);
  assert.match(r.stderr, /npm run build && node bin\/airlock serve --web/);
  assert.match(r.stderr, /npm run electron:download/);
  assert.doesNotMatch(r.stderr, /delete node_modules/);
  r = node(root, ['scripts/postinstall.mjs', '--strict']);
  assert.equal(r.status, 1);
  r = node(root, ['scripts/postinstall.mjs'], { ELECTRON_SKIP_BINARY_DOWNLOAD: '1' });
  assert.equal(r.status, 0);
  assert.match(r.stderr, /ELECTRON_SKIP_BINARY_DOWNLOAD is set/);
  fs.rmSync(root, { recursive: true, force: true });
});

test('postinstall: a working download installs the binary and says so', () => {
  const root = fakeRoot(WORKING);
  const r = node(root, ['scripts/postinstall.mjs']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /downloading Electron's binary .* done/);
  assert.ok(fs.existsSync(path.join(root, 'node_modules', 'electron', 'dist', 'electron')));
  assert.equal(node(root, ['scripts/postinstall.mjs']).stderr, '', 'already there: nothing to do, nothing printed');
  fs.rmSync(root, { recursive: true, force: true });
});

test('npm start without the binary explains itself at once: no build, no node-gyp, no "delete node_modules"', () => {
  const root = fakeRoot(FAILING);
  const t0 = Date.now();
  const r = node(root, ['scripts/start.mjs']);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^airlock: the tray app needs Electron, and Electron 41\.7\.1's binary is not downloaded/m);
  assert.match(r.stderr, /npm run electron:download/);
  assert.match(r.stderr, /serve --web/);
  assert.doesNotMatch(r.stdout + r.stderr, /build:|node-gyp|delete node_modules/);
  assert.ok(Date.now() - t0 < 30_000);
  fs.rmSync(path.join(root, 'node_modules', 'electron'), { recursive: true });
  const r2 = node(root, ['scripts/start.mjs']);
  assert.match(r2.stderr, /the electron package is not installed/);
  fs.rmSync(root, { recursive: true, force: true });
});

test('npm start with a binary but no display says to use web mode (Linux)', (t) => {
  if (process.platform !== 'linux') return t.skip('Linux only');
  const root = fakeRoot(WORKING);
  node(root, ['scripts/postinstall.mjs']);
  const r = node(root, ['scripts/start.mjs'], { DISPLAY: '', WAYLAND_DISPLAY: '' });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /needs a desktop session/);
  assert.match(r.stderr, /serve --web/);
  fs.rmSync(root, { recursive: true, force: true });
});
