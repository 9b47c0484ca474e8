// Placeholders: what a sandbox sees instead of a secret. Each task gets its own random
// placeholder per secret, so one task's placeholder is worthless to another and can be
// recognised wherever it shows up. The proxy swaps it for the real value only in an
// allowed request to one of the secret's hosts (in a header the secret names, or any
// header), and swaps the real value back to the placeholder in what those hosts answer,
// so a server that echoes a header cannot hand the value to the sandbox.
import * as crypto from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { secretHostMatches } from './secret-store';

export interface TaskSecret {
  name: string;
  hosts: string[];
  /** Lower-case header names the value may be injected into; empty: any header. */
  headers: string[];
  value: string;
  placeholder: string;
  /** The secret store's lineage of the value the task took (secret-store.ts). */
  lineage?: number;
}

export function newPlaceholder(name: string): string {
  return `airlock-placeholder-${name}-${crypto.randomBytes(16).toString('hex')}`;
}

export function secretsForHost(secrets: readonly TaskSecret[], host: string): TaskSecret[] {
  return secrets.filter((s) => s.hosts.some((h) => secretHostMatches(h, host)));
}

/** Finds needles in a byte stream across chunk boundaries; reports each name once. */
export class StreamScanner {
  private carry = '';
  private readonly keep: number;
  readonly found = new Set<string>();

  constructor(private readonly needles: readonly { name: string; text: string }[]) {
    this.keep = Math.max(0, ...needles.map((n) => n.text.length)) - 1;
  }

  get active(): boolean {
    return this.needles.length > 0;
  }

  /** Feeds a chunk; returns the names newly found in it. */
  feed(chunk: Buffer): string[] {
    if (!this.needles.length) return [];
    const text = this.carry + chunk.toString('latin1');
    const fresh: string[] = [];
    for (const n of this.needles) {
      if (!this.found.has(n.name) && text.includes(n.text)) {
        this.found.add(n.name);
        fresh.push(n.name);
      }
    }
    this.carry = this.keep > 0 ? text.slice(-this.keep) : '';
    return fresh;
  }
}

/** Replaces every `from` with its `to` in a byte stream, across chunk boundaries. */
export class ReplaceStream extends Transform {
  private carry = Buffer.alloc(0);
  private readonly keep: number;

  constructor(private readonly pairs: readonly { from: Buffer; to: Buffer }[]) {
    super();
    this.keep = Math.max(1, ...pairs.map((p) => p.from.length)) - 1;
  }

  private replaceAll(buf: Buffer): Buffer {
    let out = buf;
    for (const p of this.pairs) {
      if (p.from.length === 0 || out.indexOf(p.from) < 0) continue;
      const parts: Buffer[] = [];
      let at = 0;
      for (let i = out.indexOf(p.from); i >= 0; i = out.indexOf(p.from, at)) {
        parts.push(out.subarray(at, i), p.to);
        at = i + p.from.length;
      }
      parts.push(out.subarray(at));
      out = Buffer.concat(parts);
    }
    return out;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    const all = this.replaceAll(Buffer.concat([this.carry, chunk]));
    // Hold back what could be the start of a match that the next chunk completes.
    const cut = Math.max(0, all.length - this.keep);
    this.carry = Buffer.from(all.subarray(cut));
    cb(null, all.subarray(0, cut));
  }

  override _flush(cb: TransformCallback): void {
    cb(null, this.carry);
  }
}

/**
 * A header value with placeholders replaced (also inside `Basic base64(user:pass)`); which
 * secrets went in; and `echoes`: forms of the value the proxy itself made, each with what the
 * sandbox sent in its place, for the response to be swapped back. A Basic credential goes
 * upstream as base64 of `user:VALUE`: a server echoing the header it got (a debug endpoint,
 * httpbin's /headers) answers with that base64, which swapping the plain value never touched,
 * and the sandbox decoded the value from it.
 */
export function injectHeader(value: string, secrets: readonly TaskSecret[]): { value: string; injected: string[]; echoes: { from: string; to: string }[] } {
  const injected: string[] = [];
  const echoes: { from: string; to: string }[] = [];
  let v = value;
  for (const s of secrets) {
    if (v.includes(s.placeholder)) {
      v = v.split(s.placeholder).join(s.value);
      injected.push(s.name);
    }
  }
  const basic = /^(\s*basic\s+)([A-Za-z0-9+/=]+)\s*$/i.exec(v);
  if (basic) {
    const decoded = Buffer.from(basic[2]!, 'base64').toString('utf8');
    let d = decoded;
    for (const s of secrets) {
      if (d.includes(s.placeholder)) {
        d = d.split(s.placeholder).join(s.value);
        if (!injected.includes(s.name)) injected.push(s.name);
      }
    }
    if (d !== decoded) {
      const sent = Buffer.from(d, 'utf8').toString('base64');
      v = `${basic[1]}${sent}`;
      echoes.push({ from: sent, to: basic[2]! });
    }
  }
  return { value: v, injected, echoes };
}

/** Names of the placeholders in a text, also inside a Basic credential. */
export function placeholdersIn(text: string, secrets: readonly TaskSecret[]): string[] {
  let hay = text;
  const basic = /^\s*basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(text);
  if (basic) hay += '\n' + Buffer.from(basic[1]!, 'base64').toString('utf8');
  return secrets.filter((s) => hay.includes(s.placeholder)).map((s) => s.name);
}
