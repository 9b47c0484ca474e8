// Airlock's own files and directories, as named and with symbolic links in their parents
// resolved: what a request may never write or delete without the human (core/risk.ts) — its
// data, its sockets, and the hook program Claude Code runs. Not
// the whole home directory: with AIRLOCK_HOME pointing at a project folder, a workspace
// beside the database stays the workspace. Its own module, not paths.ts: paths.ts is in the
// Claude Code hook's bundle, which needs none of this.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AirlockPaths } from './paths';
import { webStatePath } from './web-state';

function realOrAsIs(d: string): string {
  try {
    return fs.realpathSync(d);
  } catch {
    return d;
  }
}

/**
 * The hook program `airlock hook claude-code --install` writes into Claude Code's settings: the
 * native client (dist/native/airlock-hook; in the packaged app unpacked beside app.asar) and the
 * Node hook's entry file, its bundle and the module it falls back to. Claude Code runs one of
 * them before every tool call; replacing or removing it switches Airlock off as surely as
 * editing the settings does (a hook that is missing exits 127, which Claude Code does not treat
 * as a block). Found from this file's place in the build (dist/main/os), as install.ts finds it.
 */
export function hookProgramPaths(): string[] {
  const dist = path.resolve(__dirname, '..', '..');
  const hookDir = path.join(dist, 'main', 'integrations', 'claude-code');
  const files = [
    path.join(dist, 'native', 'airlock-hook').replace(/\.asar([\\/])/, '.asar.unpacked$1'),
    path.join(hookDir, 'bin.js'),
    path.join(hookDir, 'hook.bundle.js'),
    path.join(hookDir, 'hook-main.js'),
  ];
  const out = new Set(files);
  for (const f of files) out.add(path.join(realOrAsIs(path.dirname(f)), path.basename(f)));
  return [...out];
}

export function ownPathsOf(p: AirlockPaths): string[] {
  const inHome = [p.db, `${p.db}-wal`, `${p.db}-shm`, `${p.db}-journal`, p.keysDir, p.secretsDir, webStatePath(p.home)];
  // claude-code/: the daemon's session → task files (hook-service.ts): a session's task token
  // and its owner; rewriting one would hand a session's task to another process.
  const inSockets = [p.requestSock, p.uiSock, p.agentSock, p.tasksDir, p.remotesDir, path.join(p.sockets, 'claude-code')];
  const out = new Set([...inHome, ...inSockets]);
  // The same names under the resolved directories (AIRLOCK_HOME through a symbolic link).
  const relocate = (files: string[], dir: string) => {
    const real = realOrAsIs(dir);
    if (real !== dir) for (const f of files) out.add(path.join(real, path.relative(dir, f)));
  };
  relocate(inHome, p.home);
  relocate(inSockets, p.sockets);
  for (const f of hookProgramPaths()) out.add(f);
  return [...out];
}
