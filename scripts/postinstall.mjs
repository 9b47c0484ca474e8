// Runs after `npm install` / `npm ci`: downloads Electron's binary, and tolerates failure.
//
// Why: electron's own install script exits 1 when its binary cannot be downloaded, and
// then npm fails the whole install and deletes node_modules. package.json's
// `allowScripts` denies that script (npm 11 honours it), and this script does the same
// download instead: on success the tray app works (`npm start`); on failure the install
// still succeeds and says what to run instead (web mode). Everything but the tray app —
// the daemon, the CLI, web mode, the tests — needs no Electron binary.
// npm 10 ignores allowScripts and runs electron's script itself: there, set
// ELECTRON_SKIP_BINARY_DOWNLOAD=1 where the download is impossible (see README).
//
//   node scripts/postinstall.mjs            tolerant (exit 0 on a failed download)
//   node scripts/postinstall.mjs --strict   `npm run electron:download`: exit 1 on failure
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const require = createRequire(import.meta.url);
const { electronBinary, WEB_MODE } = require('./lib/electron-binary.cjs');
const strict = process.argv.includes('--strict');
const say = (line) => process.stderr.write(`airlock: ${line}\n`);

const before = electronBinary(root);
if (before.ok) process.exit(0);
const installer = path.join(root, 'node_modules', 'electron', 'install.js');
if (!existsSync(installer)) {
  say(`${before.reason}; ${before.fix}`);
  process.exit(strict ? 1 : 0);
}
if (process.env.ELECTRON_SKIP_BINARY_DOWNLOAD && !strict) {
  say(`Electron's binary was not downloaded (ELECTRON_SKIP_BINARY_DOWNLOAD is set). The tray app needs it; web mode does not: \`${WEB_MODE}\`.`);
  process.exit(0);
}

// A stalled connection must not hang `npm install` forever.
const timeoutSec = Number(process.env.AIRLOCK_ELECTRON_DOWNLOAD_TIMEOUT_SEC) || 300;
const env = { ...process.env };
delete env.ELECTRON_SKIP_BINARY_DOWNLOAD;
process.stderr.write('airlock: downloading Electron\'s binary for the tray app … ');
const run = spawnSync(process.execPath, [installer], {
  cwd: path.dirname(installer),
  env,
  encoding: 'utf8',
  timeout: timeoutSec * 1000,
  stdio: ['ignore', 'pipe', 'pipe'],
});
const after = electronBinary(root);
if (run.status === 0 && after.ok) {
  process.stderr.write('done\n');
  process.exit(0);
}
process.stderr.write('failed\n');
const why = run.error
  ? run.error.code === 'ETIMEDOUT' ? `no answer within ${timeoutSec} s` : run.error.message
  : (`${run.stderr}`.split('\n').find((l) => /error/i.test(l)) ?? `exit ${run.status}`).trim();
say(`Electron's binary could not be downloaded (${why}).`);
say('Everything except the tray app works without it: the daemon, the CLI, the tests, and the same UI in a browser:');
say(`  ${WEB_MODE}        (prints the URL to open)`);
say('To get the tray app later, where the network allows: npm run electron:download');
process.exit(strict ? 1 : 0);
