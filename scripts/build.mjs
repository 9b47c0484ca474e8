// One build for everything: native addon, TypeScript (main, preload, tests), the
// bundled preload, and the React renderer. Prints each step so a slow one is visible.
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
// AIRLOCK_OUT lets parallel work build side by side (dist-ssh/, dist-app/ ...): one level deep.
const out = process.env.AIRLOCK_OUT || 'dist';
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const step = (label, cmd, args, opts = {}) => {
  const t0 = Date.now();
  process.stdout.write(`build: ${label} ... `);
  execFileSync(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], ...opts });
  process.stdout.write(`done (${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
};

if (!existsSync(path.join(root, 'native/build/Release/airlock_peercred.node'))) {
  step('native addon (node-gyp)', bin('node-gyp'), ['rebuild', '--directory', 'native'], { stdio: ['ignore', 'ignore', 'inherit'] });
}
rmSync(path.join(root, out), { recursive: true, force: true });
step('typescript (main, preload, test)', bin('tsc'), ['-p', 'tsconfig.json', '--outDir', out]);
if (existsSync(path.join(root, 'preload/index.ts'))) {
  step('preload bundle (esbuild)', bin('esbuild'), [
    'preload/index.ts', '--bundle', '--platform=node', '--format=cjs', '--external:electron',
    `--outfile=${out}/preload/bundle.js`, '--log-level=warning',
  ]);
}
if (existsSync(path.join(root, 'app/index.html'))) {
  step('renderer (vite)', bin('vite'), ['build', '--config', 'app/vite.config.ts', '--logLevel', 'warn', '--outDir', path.join(root, out, 'app')]);
}
