// Both Claude Code hooks as a user installs them (`airlock hook claude-code --install`, then
// `--install --node`) into a private HOME, for tests that run the installed command line itself.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { airlock } from './blackbox';

export interface InstalledHook {
  /** The command line written into ~/.claude/settings.json. */
  cmd: string;
  /** The program it ends by running: the last quoted word after `exec`. */
  program: string;
}

/** Installs each hook in turn; the native one is left out where no C compiler made it. */
export async function installBothHooks(opts: { home: string; airlockHome: string; cwd: string }): Promise<Map<'native' | 'node', InstalledHook>> {
  const env: NodeJS.ProcessEnv = { ...process.env, AIRLOCK_HOME: opts.airlockHome, HOME: opts.home };
  for (const k of ['AIRLOCK_TASK', 'AIRLOCK_TASK_TOKEN', 'AIRLOCK_REQUEST_SOCK', 'AIRLOCK_HOOK_HOME', 'CLAUDE_CONFIG_DIR']) delete env[k];
  const installed = new Map<'native' | 'node', InstalledHook>();
  for (const [name, flags] of [['native', []], ['node', ['--node']]] as const) {
    const r = await airlock(['hook', 'claude-code', '--install', ...flags], { env, cwd: opts.cwd });
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(fs.readFileSync(path.join(opts.home, '.claude', 'settings.json'), 'utf8')) as { hooks: { PreToolUse: { hooks: { command: string }[] }[] } };
    const cmd = s.hooks.PreToolUse[0]!.hooks[0]!.command;
    const words = [...cmd.slice(cmd.lastIndexOf('exec ')).matchAll(/'([^']*)'/g)].map((m) => m[1]!);
    const program = words[words.length - 1]!;
    if (name === 'native' && !program.endsWith('airlock-hook')) continue; // no C compiler: no native client
    installed.set(name, { cmd, program });
  }
  return installed;
}
