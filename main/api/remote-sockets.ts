// One request socket per remote (`airlock remote NAME`): <sockets>/remotes/<NAME>/request.sock.
// `ssh -R` forwards a socket on the server to it, so an agent on the server asks this
// Airlock, and the socket a request arrives on says which remote it came from. Only the
// agent side is ever forwarded: these sockets speak request.sock's methods and nothing else.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RemoteName, type ProcessInfo } from '../contract/common';
import type { AgentSide, RemoteSocketService } from '../core/ports';
import { ensurePrivateDir } from '../os/paths';
import { reverseForwardTargetsOf } from '../ssh/ssh-argv';
import { startRequestSocket } from './request-socket';

/** sun_path is 108 bytes on Linux (104 on macOS), including the terminating NUL. */
const MAX_SOCKET_PATH = 103;

/**
 * The remote whose socket `p` forwards, when `p` is an ssh started with `-R …:<remotesDir>/NAME/request.sock`
 * (or `-o RemoteForward=…`), as `airlock remote add` prints it; else null. The name is
 * returned whether or not NAME is still a remote (the caller asks RemoteSockets.isOpen).
 */
export function remoteForwardedBy(p: ProcessInfo, remotesDir: string): string | null {
  const prog = path.basename(p.exe ?? p.argv[0] ?? '');
  if (prog !== 'ssh' && path.basename(p.argv[0] ?? '') !== 'ssh') return null;
  const dirs = new Set([path.resolve(remotesDir)]);
  try {
    dirs.add(fs.realpathSync(remotesDir));
  } catch {
    // Not there (yet): the spelling given is the one ssh was told.
  }
  // The local end as ssh reads it (escapes undone: `remote add` escapes `%`, `\\` and `:`).
  for (const target of reverseForwardTargetsOf(p.argv)) {
    if (path.basename(target) !== 'request.sock') continue;
    const name = path.basename(path.dirname(target));
    if (!RemoteName.safeParse(name).success) continue;
    if ([...dirs].some((dir) => target === path.join(dir, name, 'request.sock'))) return name;
  }
  return null;
}

export class RemoteSockets implements RemoteSocketService {
  private readonly open_ = new Map<string, { close(): Promise<void> }>();

  constructor(
    private readonly agent: AgentSide,
    private readonly remotesDir: string,
  ) {}

  socketPathOf(name: string): string {
    if (!RemoteName.safeParse(name).success) throw new Error(`remote name ${JSON.stringify(name)} cannot name a socket directory`);
    return path.join(this.remotesDir, name, 'request.sock');
  }

  /** The remote's socket is open here: it is a remote now (not removed). */
  isOpen(name: string): boolean {
    return this.open_.has(name);
  }

  async open(name: string): Promise<string> {
    const p = this.socketPathOf(name);
    if (this.open_.has(name)) return p;
    if (Buffer.byteLength(p) > MAX_SOCKET_PATH) throw new Error(`socket path ${p} is too long for a Unix socket; choose a shorter AIRLOCK_HOME or name`);
    ensurePrivateDir(this.remotesDir);
    this.open_.set(name, await startRequestSocket(p, this.agent, { remote: name }));
    return p;
  }

  async close(name: string): Promise<void> {
    const s = this.open_.get(name);
    this.open_.delete(name);
    if (s) await s.close();
    if (RemoteName.safeParse(name).success) fs.rmSync(path.join(this.remotesDir, name), { recursive: true, force: true });
  }

  async closeAll(): Promise<void> {
    // Sockets only: the remotes stay configured and reopen with the daemon.
    for (const [name, s] of [...this.open_]) {
      this.open_.delete(name);
      await s.close();
    }
  }
}
