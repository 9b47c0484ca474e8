// `npm start`: the tray app. Checks what it needs first and says so in one paragraph —
// the Electron binary, a display — instead of failing minutes later deep inside a build.
// Then: build, better-sqlite3 for Electron's ABI (scripts/electron-native.mjs, first start
// only), and Electron itself.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const require = createRequire(import.meta.url);
const { electronBinary, WEB_MODE } = require('./lib/electron-binary.cjs');
const fail = (lines) => {
  for (const l of lines) process.stderr.write(`airlock: ${l}\n`);
  process.exit(1);
};

const electron = electronBinary(root);
if (!electron.ok) {
  fail([
    `the tray app needs Electron, and ${electron.reason}.`,
    `Fix: ${electron.fix}.`,
    'The daemon, the CLI and the web UI need no Electron (README: "The desktop app and the web UI").',
  ]);
}
if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
  fail([
    'the tray app needs a desktop session, and neither DISPLAY nor WAYLAND_DISPLAY is set.',
    `On a machine without a desktop, run the same UI in a browser: \`${WEB_MODE}\` (then \`ssh -L\` from your laptop).`,
  ]);
}
const step = (args) => {
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
step([path.join(root, 'scripts', 'build.mjs')]);
step([path.join(root, 'scripts', 'electron-native.mjs')]);
const child = spawn(electron.bin, [root, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('close', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
