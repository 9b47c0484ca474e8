// The Node Claude Code hook loads only what it needs (issue 15): its entry file and one
// esbuild bundle, no module from node_modules (no zod, no commander), and never the shell
// classifier: the mapping runs in the daemon (request.sock hook.claudeCode), the hook relays.
// Checked on the built files, by running the hook as Claude Code does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const DIR = path.join(__dirname, '..', '..', 'main', 'integrations', 'claude-code');
const BIN = path.join(DIR, 'bin.js');
const BUNDLE = path.join(DIR, 'hook.bundle.js');

/** Runs the hook with a preload that prints every file Node loaded, one per line, on exit. */
function loadedFiles(toolName: string, toolInput: Record<string, unknown>): { files: string[]; out: string } {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'al-hookb-'));
  const spy = path.join(tmp, 'spy.js');
  const list = path.join(tmp, 'loaded.txt');
  fs.writeFileSync(spy, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(list)}, Object.keys(require.cache).join('\\n')));`);
  const input = JSON.stringify({ session_id: 's1', transcript_path: '/tmp/t.jsonl', cwd: tmp, hook_event_name: 'PreToolUse', tool_name: toolName, tool_input: toolInput });
  // No daemon in this home: the hook answers (it never hangs or crashes) whatever it loads.
  const r = spawnSync(process.execPath, ['-r', spy, BIN], { input, encoding: 'utf8', timeout: 30_000, env: { ...process.env, AIRLOCK_HOME: path.join(tmp, 'home') } });
  const files = fs.readFileSync(list, 'utf8').split('\n').filter((f) => f && f !== spy);
  return { files, out: r.stdout };
}

test('the hook bundle is built, small, and requires only Node built-ins', () => {
  assert.ok(fs.existsSync(BUNDLE), `${BUNDLE} is missing: npm run build makes it`);
  const text = fs.readFileSync(BUNDLE, 'utf8');
  assert.ok(text.length < 200_000, `the bundle is ${text.length} bytes`);
  const requires = [...new Set([...text.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]!))];
  const foreign = requires.filter((r) => !r.startsWith('node:'));
  assert.deepEqual(foreign, [], 'the bundle requires modules outside it');
  // `import * as fs` would make esbuild copy every built-in into a namespace object on each
  // start (issue 15: ~1 ms of the hook's profile); the hook's modules use `import x = require()`.
  assert.doesNotMatch(text, /__toESM\(require\("node:/, 'a built-in is imported as a namespace (import * as) in the hook path');
});

test('a Write loads the entry file and the bundle only: nothing from node_modules, no zod', () => {
  const { files, out } = loadedFiles('Write', { file_path: '/tmp/x.txt', content: 'x' });
  assert.match(out, /permissionDecision/, 'the hook answered');
  assert.deepEqual(files.sort(), [BIN, BUNDLE].sort());
});

test('a Bash call loads the same two files: the shell classifier runs in the daemon, not in the hook', () => {
  const { files, out } = loadedFiles('Bash', { command: 'ls -la' });
  assert.match(out, /permissionDecision/, 'the hook answered');
  assert.deepEqual(files.sort(), [BIN, BUNDLE].sort());
});

/**
 * Runs the hook with a stand-in for Node's `module.enableCompileCache` (Node ≥ 22.1; this
 * machine's Node 20 has none) that records the folder it was given.
 */
function compileCacheDir(env: Record<string, string | undefined>): string {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'al-hookc-'));
  const spy = path.join(tmp, 'spy.js');
  const seen = path.join(tmp, 'seen.txt');
  fs.writeFileSync(spy, `require('node:module').enableCompileCache = (dir) => require('fs').writeFileSync(${JSON.stringify(seen)}, String(dir));`);
  const input = JSON.stringify({ session_id: 's1', transcript_path: '/tmp/t.jsonl', cwd: tmp, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: '/tmp/x.txt', content: 'x' } });
  const r = spawnSync(process.execPath, ['-r', spy, BIN], { input, encoding: 'utf8', timeout: 30_000, env: { ...process.env, AIRLOCK_HOME: path.join(tmp, 'home'), HOME: path.join(tmp, 'user'), ...env } });
  assert.match(r.stdout, /permissionDecision/, 'the hook answered');
  return fs.readFileSync(seen, 'utf8').replace(path.join(tmp, 'user'), '$HOME');
}

test("Node's compile cache goes to the user's own cache folder, never Node's default shared folder under the temp dir", () => {
  // The default (no folder given) is os.tmpdir()/node-compile-cache, which any local user can
  // fill with entries the hook would then load as compiled code.
  assert.equal(compileCacheDir({ XDG_CACHE_HOME: undefined }), path.join('$HOME', '.cache', 'airlock', 'node-compile-cache'));
  assert.equal(compileCacheDir({ XDG_CACHE_HOME: '/srv/cache' }), path.join('/srv/cache', 'airlock', 'node-compile-cache'));
  // A relative XDG_CACHE_HOME is invalid by the XDG spec (it would land in the agent's cwd): ignored.
  assert.equal(compileCacheDir({ XDG_CACHE_HOME: 'cache' }), path.join('$HOME', '.cache', 'airlock', 'node-compile-cache'));
});
