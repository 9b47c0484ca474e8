// What the MCP proxy asks Airlock: one request per tools/call, and one per other asked
// method (resources/read, prompts/get, a method nobody knows …; core/classify/mcp-methods.ts).
// Both carry the message's params whole when they fit (grant conditions check them, the
// daemon derives the action from them again) and cut and marked when they do not.
import type { AskParams } from '../../client';
import { mcpAction, mcpResources, type ToolAnnotations } from '../../core/classify/mcp';
import { mcpMethodVerdict } from '../../core/classify/mcp-methods';

/** Tool arguments up to this size travel whole (grant conditions check them); bigger ones are cut and marked. */
const FULL_ARGS_BYTES = 256 * 1024;

/** What the proxy knows of one tool from tools/list. */
export interface ToolInfo {
  annotations: ToolAnnotations | null;
  description: string | null;
}

export const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
export const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

/** JSON.stringify throws RangeError on values nested thousands deep (they parse fine). */
export function serialize(v: unknown): string | null {
  try {
    return JSON.stringify(v);
  } catch {
    return null;
  }
}

/** Only the MCP annotation fields we use, each a boolean or a short title. */
export function pickAnnotations(a: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ['readOnlyHint', 'destructiveHint', 'openWorldHint', 'idempotentHint']) if (typeof a[k] === 'boolean') out[k] = a[k];
  if (typeof a.title === 'string') out.title = clip(a.title, 200);
  return out;
}

/** Cuts long strings in tool arguments so the request stays small; keeps the shape. */
function capValue(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return v.length > 4096 ? `${v.slice(0, 4096)}…[${v.length - 4096} more characters]` : v;
  if (Array.isArray(v)) return depth > 4 ? '[array]' : v.slice(0, 64).map((x) => capValue(x, depth + 1));
  if (isObject(v)) return depth > 4 ? '[object]' : Object.fromEntries(Object.entries(v).slice(0, 64).map(([k, x]) => [k.slice(0, 256), capValue(x, depth + 1)]));
  return v;
}

/** The value whole when it fits, else cut and marked (then no grant condition can allow it). */
function wholeOrCut(v: unknown): { value: unknown; truncated: boolean } {
  const full = serialize(v);
  const whole = full !== null && Buffer.byteLength(full) <= FULL_ARGS_BYTES;
  return { value: whole ? v : capValue(v), truncated: !whole };
}

interface Where {
  server: string;
  task: string | null;
  cwd: string;
}

/** The request for a tools/call of `tool` (params.arguments as `args`). */
export function toolCallAsk(tool: string, args: unknown, info: ToolInfo | null, w: Where): AskParams {
  // The same mapping as the hook's and the daemon's (core/classify/mcp.ts).
  const { action } = mcpAction(tool, info, args);
  const resources = mcpResources(args, w.cwd);
  const argsText = serialize(capValue(args ?? {})) ?? '';
  const a = wholeOrCut(args ?? {});
  return {
    source: 'mcp',
    tool: clip(`${w.server}/${tool}`, 256),
    action,
    ...(resources.length ? { resource: resources[0], resources } : {}),
    summary: clip(`${w.server}/${tool} ${argsText}`, 2000),
    args: {
      arguments: a.value,
      ...(a.truncated ? { truncated: true } : {}),
      ...(info ? { annotations: info.annotations ?? {}, ...(info.description ? { description: clip(info.description, 1000) } : {}) } : { listed: false }),
    },
    ...(w.task ? { task: w.task } : {}),
    cwd: w.cwd,
  };
}

/**
 * The request for an asked method other than tools/call, or the reason it is refused
 * unasked (params that cannot be judged: no URI, a URI too long to judge whole).
 * `args.method` tells the daemon it is a method, not a tool (a tool call never has it).
 */
export function methodAsk(method: string, params: unknown, w: Where): AskParams | { refuse: string } {
  const v = mcpMethodVerdict(method, params, w.server, w.cwd);
  if (v.refuse) return { refuse: v.refuse };
  const p = isObject(params) ? params : {};
  const what = typeof p.uri === 'string' ? p.uri : typeof p.name === 'string' ? p.name : (serialize(capValue(params ?? {})) ?? '');
  const a = wholeOrCut(params ?? {});
  return {
    source: 'mcp',
    tool: clip(`${w.server}/${method}`, 256),
    action: v.action,
    ...(v.resources.length ? { resource: v.resources[0], resources: v.resources.slice(0, 256) } : {}),
    summary: clip(`${w.server} ${method} ${what}`, 2000),
    args: { method, arguments: a.value, ...(a.truncated ? { truncated: true } : {}) },
    ...(w.task ? { task: w.task } : {}),
    cwd: w.cwd,
  };
}
