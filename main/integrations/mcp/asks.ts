// What the MCP proxy asks Airlock: one request per tools/call, and one per other asked
// method (resources/read, prompts/get, a method nobody knows …; core/classify/mcp-methods.ts).
// Both carry the message's params whole when they fit (grant conditions check them, the
// daemon derives the action from them again) and cut and marked when they do not.
import type { AskParams } from '../../client';
import { LIMITS } from '../../contract/constants';
import { MAX_CALL_RESOURCES, mcpAction, mcpResourcesOf, type ToolAnnotations } from '../../core/classify/mcp';
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

/**
 * Cuts long strings in tool arguments so the request stays small; keeps the shape, and says
 * what it left out (keys and items past 64), so a cut value never looks whole.
 */
function capValue(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return v.length > 4096 ? `${v.slice(0, 4096)}…[${v.length - 4096} more characters]` : v;
  if (Array.isArray(v)) {
    if (depth > 4) return '[array]';
    const kept = v.slice(0, 64).map((x) => capValue(x, depth + 1));
    return v.length > 64 ? [...kept, `…[${v.length - 64} more items]`] : kept;
  }
  if (isObject(v)) {
    if (depth > 4) return '[object]';
    const entries = Object.entries(v);
    const kept = entries.slice(0, 64).map(([k, x]) => [k.slice(0, 256), capValue(x, depth + 1)]);
    if (entries.length > 64) kept.push(['…', `${entries.length - 64} more keys`]);
    return Object.fromEntries(kept);
  }
  return v;
}

/**
 * The prompt's one line: the label and the arguments whole when they fit the summary cap;
 * else cut, with a marker that says how much is left out (black box wave 14: keys and items
 * past 64 were dropped without a mark, so a summary could look whole and miss the argument
 * that mattered; the human must never take a cut summary for what the server gets).
 */
export function summaryOf(label: string, argsText: string): string {
  const s = argsText ? `${label} ${argsText}` : label;
  if (s.length <= LIMITS.summary) return s;
  const mark = (n: number) => `…[${n} more characters of the arguments]`;
  const keep = LIMITS.summary - mark(s.length).length;
  return s.slice(0, keep) + mark(s.length - keep);
}

/** `NAME/TOOL` too long to travel whole: refused, since a label cut to fit could be another tool's. */
function labelTooLong(label: string, what: string): string | null {
  return label.length > LIMITS.name ? `the ${what} is too long: "${clip(label, 80)}" is over ${LIMITS.name} characters, and cut to fit it could be another one's (a grant for one would cover the other)` : null;
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

/**
 * The request for a tools/call of `tool` (params.arguments as `args`), or why it is refused
 * unasked: a name too long to send whole, more paths than can be judged one by one.
 */
export function toolCallAsk(tool: string, args: unknown, info: ToolInfo | null, w: Where, rest: Record<string, unknown> = {}): AskParams | { refuse: string } {
  const label = `${w.server}/${tool}`;
  const long = labelTooLong(label, 'tool name');
  if (long) return { refuse: long };
  // The same mapping as the hook's and the daemon's (core/classify/mcp.ts).
  const { action } = mcpAction(tool, info, args);
  const r = mcpResourcesOf(args, w.cwd);
  if (r.overflow) return { refuse: `the arguments name more than ${MAX_CALL_RESOURCES} paths or URLs: too many to judge one by one (one left out could be the one a deny grant is for)` };
  const resources = r.resources;
  const a = wholeOrCut(args ?? {});
  const more = Object.keys(rest).length ? wholeOrCut(rest) : null;
  return {
    source: 'mcp',
    tool: label,
    action,
    ...(resources.length ? { resource: resources[0], resources } : {}),
    summary: summaryOf(label, serialize(args ?? {}) ?? serialize(capValue(args ?? {})) ?? ''),
    args: {
      arguments: a.value,
      ...(a.truncated ? { truncated: true } : {}),
      // The rest of params (`_meta` …), recorded as sent; conditions see only `arguments`.
      ...(more ? { params: more.value, ...(more.truncated ? { truncated: true } : {}) } : {}),
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
  const long = labelTooLong(`${w.server}/${method}`, 'method name');
  if (long) return { refuse: long };
  const v = mcpMethodVerdict(method, params, w.server, w.cwd);
  if (v.refuse) return { refuse: v.refuse };
  const p = isObject(params) ? params : {};
  const text = (x: unknown) => serialize(x) ?? serialize(capValue(x)) ?? '';
  // The URI or name first (what the human looks for), then what else goes with it.
  const what =
    typeof p.uri === 'string' ? p.uri : typeof p.name === 'string' ? (p.arguments !== undefined ? `${p.name} ${text(p.arguments)}` : p.name) : text(params ?? {});
  const a = wholeOrCut(params ?? {});
  return {
    source: 'mcp',
    tool: `${w.server}/${method}`,
    action: v.action,
    ...(v.resources.length ? { resource: v.resources[0], resources: v.resources.slice(0, LIMITS.resources) } : {}),
    summary: summaryOf(`${w.server} ${method}`, what),
    args: { method, arguments: a.value, ...(a.truncated ? { truncated: true } : {}) },
    ...(w.task ? { task: w.task } : {}),
    cwd: w.cwd,
  };
}
