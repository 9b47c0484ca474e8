// The two Claude Code hooks a user can install, for tests that must hold for both: the Node
// hook (bin.js, a relay) and the native client (dist/native/airlock-hook, built by
// `npm run build` when a C compiler is present). Both ask the daemon through request.sock
// `hook.claudeCode`. Without a compiler the native variant is skipped, saying why; with one,
// a missing binary is a failure, never a skip.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { run } from './run';

export const NODE_HOOK = path.join(__dirname, '..', '..', 'main', 'integrations', 'claude-code', 'bin.js');
export const NATIVE_HOOK = path.join(__dirname, '..', '..', 'native', 'airlock-hook');

function nativeSkipReason(): string | false {
  if (fs.existsSync(NATIVE_HOOK)) return false;
  const cc = spawnSync(process.env.CC || 'cc', ['--version'], { stdio: 'ignore' });
  if (cc.status === 0) return false; // a compiler is here: the build must have made it
  return `no native hook: no C compiler (${process.env.CC || 'cc'}) on this machine, so npm run build did not make ${NATIVE_HOOK}`;
}

export const nativeSkip = nativeSkipReason();

export interface HookVariant {
  name: 'node' | 'native';
  skip: string | false;
  /** The program and arguments that run this hook directly (as Claude Code would, minus the shell). */
  cmd: string;
  args: string[];
  /** Extra `airlock hook claude-code --install` flags that install this variant. */
  installFlags: string[];
}

export const HOOK_VARIANTS: HookVariant[] = [
  { name: 'node', skip: false, cmd: process.execPath, args: [NODE_HOOK], installFlags: ['--node'] },
  { name: 'native', skip: nativeSkip, cmd: NATIVE_HOOK, args: [], installFlags: [] },
];

/**
 * What the Node hook (as Claude Code runs it) answers for a Bash call of `command` in `cwd`:
 * allow, deny or ask. For the red-team tests that run each way around the classifier through
 * the hook as well as through `airlock exec --shell`.
 */
export async function bashHookDecision(env: NodeJS.ProcessEnv, cwd: string, command: string, session: string): Promise<string> {
  const input = JSON.stringify({ session_id: session, transcript_path: '/x.jsonl', cwd, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command } });
  const r = await run(process.execPath, [NODE_HOOK], { env, input, timeoutMs: 30_000 });
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput.permissionDecision;
}
