// `npm start` runs the core inside Electron, whose ABI differs from Node's. Instead of
// rebuilding node_modules/better-sqlite3 for Electron (which breaks the CLI and the
// tests until `npm rebuild`), this builds a second copy for Electron into
// native/electron/ and the store loads it only when running under Electron
// (main/store/native-binding.ts). Needs Electron's headers: run where the network allows.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const require = createRequire(import.meta.url);
const electron = require('electron/package.json').version;
const sqlite = require('better-sqlite3/package.json').version;
const outDir = path.join(root, 'native', 'electron');
const stamp = path.join(outDir, 'stamp.json');
const want = JSON.stringify({ electron, sqlite, platform: process.platform, arch: process.arch });
if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want && existsSync(path.join(outDir, 'better_sqlite3.node'))) {
  console.log(`electron-native: better-sqlite3 ${sqlite} for Electron ${electron} is up to date`);
  process.exit(0);
}
console.log(`electron-native: building better-sqlite3 ${sqlite} for Electron ${electron} (about two minutes) …`);
const work = mkdtempSync(path.join(os.tmpdir(), 'airlock-electron-native-'));
try {
  const src = path.join(root, 'node_modules', 'better-sqlite3');
  cpSync(src, path.join(work, 'better-sqlite3'), { recursive: true, filter: (p) => !p.includes(`${path.sep}build${path.sep}`) });
  execFileSync(
    process.execPath,
    [require.resolve('node-gyp/bin/node-gyp.js'), 'rebuild', '--release', `--target=${electron}`, '--runtime=electron', '--dist-url=https://electronjs.org/headers'],
    { cwd: path.join(work, 'better-sqlite3'), stdio: 'inherit', env: { ...process.env, npm_config_nodedir: '' } },
  );
  mkdirSync(outDir, { recursive: true });
  copyFileSync(path.join(work, 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'), path.join(outDir, 'better_sqlite3.node'));
  writeFileSync(stamp, want);
  console.log(`electron-native: wrote ${path.relative(root, outDir)}/better_sqlite3.node`);
} catch (e) {
  console.error(`electron-native: could not build better-sqlite3 for Electron (${e.message}). It needs a C/C++ toolchain and python3 (sudo scripts/install-system-deps.sh) and Electron's headers from the network. The tray app needs it; web mode (npm run build && node bin/airlock serve --web) does not.`);
  process.exit(1);
} finally {
  rmSync(work, { recursive: true, force: true });
}
