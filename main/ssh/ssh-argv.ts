// The destination an ssh process was started for, read from its argv. Only a hint: it is
// used to check hashed known_hosts entries (which then vouch for the name), never shown on
// its own as the destination.
import * as path from 'node:path';
import type { ProcessInfo } from '../contract/common';
import { reverseForwardTarget } from './forward-spec';

// ssh(1) options that take an argument (OpenSSH 9).
const WITH_ARG = new Set('BbcDEeFIiJLlmOoPpQRSWw'.split(''));

export interface SshDestination {
  user: string | null;
  host: string;
  port: number | null;
}

export function parseSshArgv(argv: string[]): SshDestination | null {
  let port: number | null = null;
  let user: string | null = null;
  for (let i = 1; i < argv.length && i < 256; i++) {
    const a = argv[i]!;
    if (a === '--') {
      const dest = argv[i + 1];
      return dest ? destination(dest, user, port) : null;
    }
    if (a.startsWith('-') && a.length > 1) {
      // Flags may be bundled (-At); the first one taking an argument ends the bundle.
      for (let j = 1; j < a.length; j++) {
        const c = a[j]!;
        if (!WITH_ARG.has(c)) continue;
        const value = j + 1 < a.length ? a.slice(j + 1) : argv[++i];
        if (value === undefined) return null;
        if (c === 'p') port = toPort(value) ?? port;
        if (c === 'l') user = value;
        if (c === 'o') {
          const m = /^\s*(\w+)\s*[= ]\s*(.*)$/.exec(value);
          if (m && m[1]!.toLowerCase() === 'port') port = toPort(m[2]!) ?? port;
          if (m && m[1]!.toLowerCase() === 'user') user = m[2]!;
        }
        break;
      }
      continue;
    }
    return destination(a, user, port);
  }
  return null;
}

function toPort(s: string): number | null {
  const n = Number(s.trim());
  return Number.isInteger(n) && n > 0 && n < 65536 ? n : null;
}

function destination(dest: string, user: string | null, port: number | null): SshDestination | null {
  const uri = /^ssh:\/\/(?:([^@/]+)@)?(\[[^\]]+\]|[^:/]+)(?::(\d+))?\/?$/.exec(dest);
  if (uri) {
    return { user: uri[1] ?? user, host: uri[2]!.replace(/^\[|\]$/g, ''), port: uri[3] ? toPort(uri[3]) : port };
  }
  const at = dest.lastIndexOf('@');
  const host = at >= 0 ? dest.slice(at + 1) : dest;
  if (host === '') return null;
  return { user: at >= 0 ? dest.slice(0, at) : user, host, port };
}

/** The nearest ssh process in the requester's tree and its destination. */
export function sshDestinationOf(proc: ProcessInfo | undefined): SshDestination | null {
  if (!proc) return null;
  for (const node of proc.tree) {
    const name = path.basename(node.exe ?? node.argv[0] ?? '');
    if (name === 'ssh' || name === 'ssh.exe') return parseSshArgv(node.argv);
  }
  return null;
}

/** Names ssh looks the host key up under in known_hosts. */
export function knownHostsCandidates(d: SshDestination | null): string[] {
  if (!d) return [];
  const h = d.host.toLowerCase();
  return d.port && d.port !== 22 ? [`[${h}]:${d.port}`] : [h];
}

/**
 * What an ssh command line forwards back to this machine: the value of every `-R` (bundled
 * or not) and `-o RemoteForward=…` before the destination, as written. `airlock remote add`
 * prints `-R SERVER_SOCKET:LOCAL_SOCKET`; its LOCAL_SOCKET names the remote.
 */
export function remoteForwardsOf(argv: readonly string[]): string[] {
  return reverseForwards(argv).map((f) => f.value);
}

/**
 * The local sockets an ssh command line's reverse forwards connect to, as ssh reads them
 * (escapes undone, forward-spec.ts); a forward whose local end ssh would expand (`%d`,
 * `${HOME}`) names no literal path and is left out.
 */
export function reverseForwardTargetsOf(argv: readonly string[]): string[] {
  return reverseForwards(argv)
    .map((f) => reverseForwardTarget(f.value, f.config))
    .filter((t): t is string => t !== null);
}

function reverseForwards(argv: readonly string[]): { value: string; config: boolean }[] {
  const out: { value: string; config: boolean }[] = [];
  for (let i = 1; i < argv.length && i < 256; i++) {
    const a = argv[i]!;
    if (a === '--' || !a.startsWith('-') || a.length === 1) break;
    for (let j = 1; j < a.length; j++) {
      const c = a[j]!;
      if (!WITH_ARG.has(c)) continue;
      const value = j + 1 < a.length ? a.slice(j + 1) : argv[++i];
      if (value === undefined) return out;
      if (c === 'R') out.push({ value, config: false });
      if (c === 'o') {
        const m = /^\s*remoteforward\s*[= ]\s*(.*)$/i.exec(value);
        if (m) out.push({ value: m[1]!, config: true });
      }
      break;
    }
  }
  return out;
}
