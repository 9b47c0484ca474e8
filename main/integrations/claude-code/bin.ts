// The hook's own entry file: what ~/.claude/settings.json runs. A tool call should cost
// little more than starting Node (issue 15), so it skips the CLI (commander, zod) and loads
// one esbuild bundle of the hook (hook.bundle.js, made by `npm run build`) instead of a tree
// of modules, with Node's module compile cache where the Node version has it (≥ 22.1), so
// the bundle is parsed and compiled once, not on every tool call.
import * as nodeModule from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

const compileCache = nodeModule as { enableCompileCache?: (dir?: string) => unknown };
if (typeof compileCache.enableCompileCache === 'function') {
  try {
    // Never Node's default folder: it is a shared one under the temp dir, where another
    // local user could plant cache entries this hook would then load as compiled code.
    // The user's own cache folder instead (XDG_CACHE_HOME, else ~/.cache).
    const xdg = process.env.XDG_CACHE_HOME;
    const cacheHome = xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.cache');
    compileCache.enableCompileCache(path.join(cacheHome, 'airlock', 'node-compile-cache'));
  } catch {
    // No cache directory (read-only home): compile as usual.
  }
}
try {
  require('./hook.bundle.js');
} catch (e) {
  // A build without the bundle (tsc only): the same code, module by module.
  if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw e;
  require('./hook-main');
}
