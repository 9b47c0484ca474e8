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
// Claude Code blocks a tool call only on exit 2 (or a decision printed): a hook that throws
// exits 1, a "non-blocking error", and the tool runs unasked. So every failure here ends in
// "ask" (nothing printed yet) or exit 2 (a block, its reason on stderr), never exit 1.
const why = (e: unknown) => String(e instanceof Error ? e.message : e).replace(/\s+/g, ' ').slice(0, 300);
process.on('uncaughtException', (e) => {
  try {
    process.stderr.write(`Airlock hook failed (${why(e)}); blocking this tool call\n`);
  } finally {
    process.exit(2);
  }
});
function load(): void {
  try {
    require('./hook.bundle.js');
  } catch (e) {
    // A build without the bundle (tsc only): the same code, module by module.
    if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw e;
    require('./hook-main');
  }
}
try {
  load();
} catch (e) {
  // The hook's code cannot be loaded (a damaged or half-rebuilt bundle): nothing was printed,
  // so Claude Code's own prompt, with the reason.
  const reason = `Airlock hook failed (its code in ${__dirname} cannot be loaded: ${why(e)}); asking instead`;
  process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: reason } }) + '\n');
  process.exitCode = 0;
}
