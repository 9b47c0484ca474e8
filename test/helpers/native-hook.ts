// The two Claude Code hooks a user can install, for tests that must hold for both: the Node
// hook (bin.js, a relay) and the native client (dist/native/airlock-hook, built by
// `npm run build` when a C compiler is present). Both ask the daemon through request.sock
// `hook.claudeCode`. Without a compiler the native variant is skipped, saying why; with one,
// a missing binary is a failure, never a skip.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

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
