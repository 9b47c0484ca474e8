// Small helpers every command uses: connecting to the daemon, failing with a clear
// message and the documented exit code.
import { RpcClient, AirlockRpcError } from '../client/rpc-client';
import { airlockPaths } from '../os/paths';
import { EXIT } from './exit-codes';
import { visible } from '../../shared/display-text';

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.usage,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

async function connect(sock: string): Promise<RpcClient> {
  try {
    return await RpcClient.connect(sock);
  } catch (e) {
    // The cause is kept so a caller can tell a planted socket (UntrustedSocketError) from a stopped daemon.
    throw new CliError((e as Error).message, EXIT.unavailable, { cause: e });
  }
}

export const connectUi = () => connect(airlockPaths().uiSock);
export const connectAgent = () => connect(process.env.AIRLOCK_REQUEST_SOCK ?? airlockPaths().requestSock);

/** Runs one call on a fresh connection and closes it. */
export async function callUi<T>(method: string, params: unknown = {}): Promise<T> {
  const c = await connectUi();
  try {
    return await c.call<T>(method, params);
  } catch (e) {
    if (e instanceof AirlockRpcError) throw new CliError(e.message, EXIT.usage);
    throw e;
  } finally {
    c.close();
  }
}

/** A whole number typed on the command line, in decimal digits only. `Number()` alone takes
 *  `0x10`, `1e3`, ` 16 ` and `` (0) as numbers, so a typo or a trick reads as a real value. */
export function parseWhole(flag: string, raw: string, min: number, max: number): number {
  const n = /^[0-9]{1,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new CliError(`bad ${flag} "${raw}": a whole number from ${min} to ${max}`);
  return n;
}

/** `--timeout` of exec and check: decimal seconds (600, 0.5); `Number()` alone also took 0x10 and 1e3. */
export function parseTimeoutSeconds(raw: string): number {
  const n = /^[0-9]{1,7}(\.[0-9]{1,3})?$/.test(raw) ? Number(raw) : NaN;
  if (!(n > 0 && n <= 7 * 86400)) throw new CliError(`bad --timeout "${raw}": seconds (600, or 0.5), more than 0 and at most 604800 (7 days)`);
  return n;
}

/** "15m", "2h", "30s", "1d" → seconds. */
export function parseDuration(s: string): number {
  const m = /^(\d+)\s*(s|m|h|d)?$/.exec(s.trim());
  if (!m) throw new CliError(`bad duration "${s}": use e.g. 30s, 15m, 2h or 1d`);
  const n = Number(m[1]);
  return n * ({ s: 1, m: 60, h: 3600, d: 86400 } as const)[(m[2] ?? 's') as 's' | 'm' | 'h' | 'd'];
}

export function printJson(v: unknown): void {
  process.stdout.write(JSON.stringify(v, null, 2) + '\n');
}

export function fmtTime(ms: number | null): string {
  if (ms === null) return '-';
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

/** A fixed-width table for terminals. Cells hold agent-supplied text (summaries, tools,
 *  resources, task names): escapes and bidi/invisible characters are shown escaped. */
/**
 * Columns are cut at 60 characters, with `…` where a cell was cut (it was cut silently: a
 * grant's long resource, its key or its condition looked like a shorter, different one).
 * `full` names columns never cut (what a grant covers, blackbox9); the last one never is.
 */
export function table(raw: string[][], opts: { full?: number[] } = {}): string {
  if (raw.length === 0) return '';
  const rows = raw.map((r) => r.map((c) => visible(c)));
  const full = new Set(opts.full ?? []);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const cap = widths.map((w, i) => (full.has(i) ? w : Math.min(60, w)));
  const cell = (c: string, i: number) => (c.length > cap[i]! ? `${c.slice(0, cap[i]! - 1)}…` : c.padEnd(cap[i]!));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : cell(c, i))).join('  ')).join('\n') + '\n';
}
