// MCP methods other than tools/call: which the proxy asks Airlock about, which pass, and
// what an asked one does. One table for the proxy (main/integrations/mcp) and the daemon
// (request-policy.ts), which derives the action again from the method and its params so
// the agent side can only ever make a request riskier than this says.
//
// Asked (decided and recorded, like a tools/call):
//   resources/read, resources/subscribe — a read of the URI (mcp-uri.ts: a `file:` URI is
//     its paths, so a key read through MCP is a secret read for the chain rules);
//   prompts/get — a read of the server's prompt; its arguments may name files it embeds;
//   sampling/createMessage (server → client) — the server has the client's model write for
//     it, and with includeContext the session's conversation goes to the server;
//   any method not in the tables below, and a known one spelled otherwise (`Resources/Read`,
//     `resources/read `): `other`, asked by default. A server may implement anything under
//     a name we do not know, and a lenient one may fold case or spaces.
// Passed unasked: the protocol's own plumbing and listings (names and descriptions, no
// content), completion/complete (suggestions for an argument the human is typing; asked per
// keystroke, and what it returns is a list of values, not a resource's content),
// logging/setLevel, and the server's roots/list, elicitation/create (the client asks the
// human directly) and ping — as long as their params hold only the protocol's own fields,
// within a few KB (PLUMBING). A `ping` with `{"secret": …}`, a 100 KB cursor: data for the
// server, which is asked (and so recorded) like a method nobody knows.
import type { Action } from '../../contract/constants';
import { MAX_CALL_RESOURCES, mcpResourcesOf } from './mcp';
import { MAX_URI_CHARS, namePaths, uriTarget } from './mcp-uri';

/** Client → server methods that are asked. */
export const ASKED_CLIENT_METHODS = new Set(['resources/read', 'resources/subscribe', 'prompts/get']);
/** Server → client methods that are asked. */
export const ASKED_SERVER_METHODS = new Set(['sampling/createMessage']);

/** Client → server methods (and notifications) that pass unasked. */
const PASSED_CLIENT_METHODS = new Set([
  'initialize', 'ping', 'tools/list', 'resources/list', 'resources/templates/list', 'resources/unsubscribe', 'prompts/list',
  'completion/complete', 'logging/setLevel', 'tasks/get', 'tasks/list', 'tasks/result', 'tasks/cancel',
  'notifications/initialized', 'notifications/cancelled', 'notifications/progress', 'notifications/roots/list_changed', 'notifications/tasks/status',
]);

/**
 * What a passed method's params may hold (besides `_meta`) and how large they may be as
 * JSON; `keys: null`: any. Sizes are generous for the protocol's own values (cursors,
 * clientInfo, a typed prefix) and far below what would carry a file.
 */
const LIST = { keys: ['cursor'], chars: 4096 };
const PLUMBING: Record<string, { keys: readonly string[] | null; chars: number }> = {
  initialize: { keys: ['protocolVersion', 'capabilities', 'clientInfo'], chars: 16384 },
  ping: { keys: [], chars: 256 },
  'tools/list': LIST, 'resources/list': LIST, 'resources/templates/list': LIST, 'prompts/list': LIST, 'tasks/list': LIST,
  'resources/unsubscribe': { keys: ['uri'], chars: 4096 },
  'completion/complete': { keys: ['ref', 'argument', 'context'], chars: 8192 },
  'logging/setLevel': { keys: ['level'], chars: 256 },
  'tasks/get': { keys: ['taskId'], chars: 1024 }, 'tasks/result': { keys: ['taskId'], chars: 1024 }, 'tasks/cancel': { keys: ['taskId'], chars: 1024 },
  'notifications/initialized': { keys: [], chars: 256 },
  'notifications/cancelled': { keys: ['requestId', 'reason'], chars: 2048 },
  'notifications/progress': { keys: ['progressToken', 'progress', 'total', 'message'], chars: 2048 },
  'notifications/roots/list_changed': { keys: [], chars: 256 },
  'notifications/tasks/status': { keys: null, chars: 2048 },
};

/**
 * Why the params of a passed client method carry more than the protocol's plumbing (a key it
 * does not have, more than its size), or null when they do not. Such a message is asked,
 * never passed unrecorded.
 */
export function passedCarries(method: string, params: unknown): string | null {
  const rule = PLUMBING[method];
  if (!rule || params === undefined) return null;
  if (!isObject(params)) return `${method} params that are not an object (${Array.isArray(params) ? 'an array' : typeof params}): data for the server beyond the protocol's own`;
  const odd = rule.keys ? Object.keys(params).filter((k) => k !== '_meta' && !rule.keys!.includes(k)) : [];
  if (odd.length) return `${method} carries fields it does not have (${odd.slice(0, 5).map((k) => JSON.stringify(k.slice(0, 40))).join(', ')}${odd.length > 5 ? ` and ${odd.length - 5} more` : ''}): data for the server beyond the protocol's own`;
  let size: number;
  try {
    size = JSON.stringify(params).length;
  } catch {
    size = Infinity;
  }
  if (size > rule.chars) return `${method} params of ${Number.isFinite(size) ? `${size} characters` : 'unbounded depth'}, over the ${rule.chars} of its plumbing: data for the server beyond the protocol's own`;
  return null;
}

/** Every method name this file knows, to tell an odd spelling of one from a new method. */
const KNOWN = new Set([...PASSED_CLIENT_METHODS, ...ASKED_CLIENT_METHODS, ...ASKED_SERVER_METHODS, 'tools/call']);
/** `Resources/Read`, `resources/read `, `resources/read\u200b`: folded the way a lenient server might. */
const fold = (m: string) => m.normalize('NFKC').replace(/[\s\u200b-\u200f\u2060\ufeff]/g, '').toLowerCase();
const FOLDED = new Map([...KNOWN].map((m) => [fold(m), m]));

export type ClientMethodRule = 'tools/call' | 'ask' | 'pass';

/** What the proxy does with a client → server method (a string; anything else is not a request). */
export function clientMethodRule(method: string): ClientMethodRule {
  if (method === 'tools/call') return 'tools/call';
  if (PASSED_CLIENT_METHODS.has(method)) return 'pass';
  return 'ask';
}

/** The known method an odd spelling stands for (`Resources/Read` → `resources/read`), or null. */
export function oddSpellingOf(method: string): string | null {
  if (KNOWN.has(method)) return null;
  return FOLDED.get(fold(method)) ?? null;
}

export interface MethodVerdict {
  action: Action;
  resources: string[];
  reasons: { level: 'low' | 'medium' | 'high'; reason: string }[];
  /** Set when the params cannot be judged: the proxy refuses the message with this. */
  refuse?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * What an asked method does: its action, what it reaches, why. `server` is the proxy's
 * label for the server; `cwd` where relative paths lead.
 */
export function mcpMethodVerdict(method: string, params: unknown, server: string, cwd?: string): MethodVerdict {
  const p = isObject(params) ? params : {};
  // Paths a lenient server might read from extra fields (`{uri, path}`) count too.
  const extraOf = mcpResourcesOf(Object.fromEntries(Object.entries(p).filter(([k]) => k !== 'uri' && k !== 'arguments')), cwd);
  const extra = () => extraOf.resources;
  // More paths than can be judged one by one: one left out could be the one a deny is for.
  const tooMany = `the params name more than ${MAX_CALL_RESOURCES} paths or URLs: too many to judge one by one`;
  if (extraOf.overflow) return { action: 'other', resources: [], reasons: [], refuse: tooMany };
  if (method === 'resources/read' || method === 'resources/subscribe') {
    if (typeof p.uri !== 'string' || !p.uri) return { action: 'read', resources: [], reasons: [], refuse: `${method} needs params.uri (a string)` };
    if (p.uri.length > MAX_URI_CHARS) return { action: 'read', resources: [], reasons: [], refuse: `the URI is longer than ${MAX_URI_CHARS} characters` };
    const t = uriTarget(p.uri, server, cwd);
    return { action: t.action, resources: [...new Set([...t.resources, ...extra()])], reasons: t.reasons };
  }
  if (method === 'prompts/get') {
    if (typeof p.name !== 'string' || !p.name || p.name.length > 256) return { action: 'read', resources: [], reasons: [], refuse: 'prompts/get needs params.name (a string of at most 256 characters)' };
    const args = mcpResourcesOf(p.arguments, cwd);
    if (args.overflow) return { action: 'read', resources: [], reasons: [], refuse: tooMany };
    // A name that reads as a path or a file: URI (`/home/u/.ssh/id_ed25519`, `../.env`): a
    // server serving prompts from files may open it, so it is judged as that file too.
    const named = namePaths(p.name, cwd);
    const reasons: MethodVerdict['reasons'] = named.length ? [{ level: 'low', reason: `the prompt's name reads as a path (${named[0]!.slice(0, 200)}): judged as a file read too` }] : [];
    return { action: 'read', resources: [...new Set([`mcp:${server}:prompts/${p.name}`, ...named, ...args.resources.filter((r) => r !== p.name)])], reasons };
  }
  if (method === 'sampling/createMessage') {
    const context = typeof p.includeContext === 'string' ? p.includeContext : 'none';
    if (context !== 'none') {
      return { action: 'transfer', resources: [`mcp:${server}`], reasons: [{ level: 'medium', reason: `the server asks the client's model to write for it, with the session's context (includeContext: ${context.slice(0, 40)}): what the conversation holds goes to the server` }] };
    }
    return { action: 'other', resources: [`mcp:${server}`], reasons: [{ level: 'low', reason: "the server asks the client's model to write for it (sampling)" }] };
  }
  if (PASSED_CLIENT_METHODS.has(method)) {
    // Asked only when its params carry more than the plumbing (the proxy passes it otherwise).
    const why = passedCarries(method, params) ?? `${method}, asked with these params`;
    return { action: 'other', resources: [...new Set([`mcp:${server}`, ...extra()])], reasons: [{ level: 'medium', reason: why }] };
  }
  const odd = oddSpellingOf(method);
  const reasons: MethodVerdict['reasons'] = [
    odd
      ? { level: 'high', reason: `the method is spelled ${JSON.stringify(method.slice(0, 80))}, not ${odd}: a lenient server may take it as ${odd}` }
      : { level: 'medium', reason: `an MCP method Airlock does not know (${method.slice(0, 80)}): the server may do anything under it` },
  ];
  // An odd spelling is judged as what it may stand for too.
  if (odd && odd !== method && (ASKED_CLIENT_METHODS.has(odd) || ASKED_SERVER_METHODS.has(odd))) {
    const as = mcpMethodVerdict(odd, params, server, cwd);
    return { action: as.action === 'read' ? 'other' : as.action, resources: as.resources, reasons: [...reasons, ...as.reasons], ...(as.refuse ? { refuse: as.refuse } : {}) };
  }
  return { action: 'other', resources: [...new Set([`mcp:${server}`, ...extra()])], reasons };
}
