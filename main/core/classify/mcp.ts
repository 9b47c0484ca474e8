// The action of an MCP tool call: ONE mapping for the stdio proxy (`airlock mcp`) and the
// Claude Code hook (`mcp__server__tool`), applied again by the daemon (broker.normalize),
// which also knows what earlier proxies learned from tools/list and the human's pins.
//
// Annotations (MCP spec "Tool annotations") are the server's claim, so they can make a
// call *more* dangerous freely but make it a read only when nothing else says otherwise:
//   - readOnlyHint → read (unless the tool's own name says it removes, runs, sends or
//     writes something: nameActs);
//   - not read-only → write;
//   - delete only when the tool's name or description says it removes something
//     (delete, remove, trash, purge, destroy, …) and destructiveHint does not deny it;
//   - an outbound argument (URL, recipient, host) → transfer, unless openWorldHint is
//     false (the spec's default is true);
//   - destructiveHint on a write raises the risk instead of changing the action
//     (server-filesystem marks write_file/edit_file/move_file destructive: they are writes);
//   - nothing known (no annotations seen, no pin) → never a read: delete when the name says
//     it removes something, else write. A name alone never makes a tool a read.
// The human's `mcpToolActions` pin wins over all of it (broker.normalize).
import * as path from 'node:path';
import type { Action } from '../../contract/constants';
import { ACTION_RANK, riskier } from '../../contract/constants';

export interface ToolAnnotations {
  readOnlyHint?: unknown;
  destructiveHint?: unknown;
  openWorldHint?: unknown;
  idempotentHint?: unknown;
  title?: unknown;
}

/** What a tool is known as: from the proxy's tools/list (or the store), or nothing. */
export interface McpToolInfo {
  annotations?: ToolAnnotations | null;
  description?: string | null;
}

export type ActionOrigin = 'annotation' | 'pin' | 'name';

type RiskLevel = 'low' | 'medium' | 'high' | 'critical';

export interface McpActionResult {
  action: Action;
  origin: ActionOrigin;
  /** Lines for the prompt and history: where the action came from, what raised the risk. */
  reasons: { level: RiskLevel; reason: string }[];
}

/** Words that mean "removes something" (whole words of the name, or of the description). */
const REMOVES = new Set([
  'delete', 'deletes', 'deleting', 'deleted', 'remove', 'removes', 'removing', 'rm', 'rmdir', 'unlink', 'trash', 'purge', 'purges',
  'destroy', 'destroys', 'erase', 'erases', 'wipe', 'wipes', 'drop', 'drops', 'truncate', 'expunge', 'shred', 'empty', 'clear', 'revoke', 'uninstall', 'discard',
]);
const MOVES = new Set(['move', 'moves', 'rename', 'renames', 'mv']);

/**
 * Words of a tool's name that say it does something a read never does. readOnlyHint is the
 * server's claim, and a hostile server can mark `run_command` or `send_message` read-only
 * to get it allowed silently: such a name wins over the hint (red team wave 5). Whole
 * words of the name only (descriptions are prose: "returns the commands you ran"). Words
 * that are as often nouns (`get_post`, `read_email`, `list_orders`) count only as the
 * name's first word, where tools put their verb (`post_message`, `email_team`).
 */
const NAME_RUNS = new Set(['exec', 'execute', 'eval', 'evaluate', 'shell', 'bash', 'sh', 'zsh', 'powershell', 'pwsh', 'cmd', 'spawn', 'subprocess', 'invoke', 'launch', 'install']);
const NAME_SENDS = new Set(['send', 'publish', 'forward', 'reply', 'notify', 'broadcast', 'tweet']);
const NAME_WRITES = new Set([
  'write', 'create', 'update', 'put', 'patch', 'edit', 'modify', 'insert', 'append', 'save', 'upsert', 'mkdir', 'chmod', 'chown', 'kill', 'restart', 'enable', 'disable', 'assign', 'submit', 'approve', 'mutate', ...MOVES,
]);
/** Verbs that are as often nouns: only the name's first word counts. */
const FIRST_RUNS = new Set(['run', 'command', 'script', 'terminal', 'call']);
const FIRST_SENDS = new Set(['post', 'email', 'message', 'sms', 'share', 'push', 'order', 'dm', 'webhook', 'upload', 'pay', 'transfer', 'charge', 'purchase', 'buy', 'refund']);
const FIRST_WRITES = new Set(['set', 'add', 'copy', 'cp', 'touch', 'replace', 'apply', 'stop', 'start', 'reset', 'change', 'grant', 'archive', 'store', 'import', 'sync', 'lock', 'unlock', 'close', 'mark', 'tag', 'label', 'star', 'pin', 'schedule', 'book', 'register', 'commit', 'merge', 'deploy']);

/** What a tool's name says it does beyond reading, and the word that says it, or null. */
export function nameActs(name: string): { action: Action; word: string } | null {
  const words = nameWords(name);
  const first = words[0] ?? '';
  for (const [anywhere, asVerb, action] of [[NAME_RUNS, FIRST_RUNS, 'execute'], [NAME_SENDS, FIRST_SENDS, 'transfer'], [NAME_WRITES, FIRST_WRITES, 'write']] as const) {
    const word = words.find((w) => anywhere.has(w)) ?? (asVerb.has(first) ? first : undefined);
    if (word) return { action, word };
  }
  return null;
}

/** `get_and_delete_all_mail`, `deleteAllMail`, `mail-purge` → lower-case words. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

export const nameRemoves = (name: string): boolean => nameWords(name).some((w) => REMOVES.has(w));
/** In prose, "empty", "clear" and "drop" mostly mean something else ("may be empty"). */
const PROSE_NOT_REMOVAL = new Set(['empty', 'clear', 'drop', 'drops']);
const textRemoves = (text: string): boolean => nameWords(text.slice(0, 4096)).some((w) => REMOVES.has(w) && !PROSE_NOT_REMOVAL.has(w));
const nameMoves = (name: string): boolean => nameWords(name).some((w) => MOVES.has(w));

/** Argument names that say where data goes. */
const OUTBOUND_KEYS = /^(url|uri|urls|endpoint|webhook|webhook_?url|host|hostname|server|domain|to|cc|bcc|recipient|recipients|email|emails|address|addresses|destination_?url|callback(_?url)?|channel|phone)$/i;
const URLISH = /^[a-z][a-z0-9+.-]*:\/\/[^\s/]/i;
const EMAILISH = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The first argument that sends data somewhere (a URL, a recipient, a host), or null. */
export function outboundArgument(args: unknown): string | null {
  if (!args || typeof args !== 'object' || Array.isArray(args)) return null;
  let n = 0;
  for (const [k, v] of Object.entries(args as Record<string, unknown>)) {
    if (++n > 256) break;
    const values = Array.isArray(v) ? v.slice(0, 64) : [v];
    for (const x of values) {
      if (typeof x !== 'string' || !x) continue;
      if (OUTBOUND_KEYS.test(k) || (URLISH.test(x) && !x.startsWith('file://')) || EMAILISH.test(x)) return k;
    }
  }
  return null;
}

const isTrue = (v: unknown) => v === true;
const isFalse = (v: unknown) => v === false;
/**
 * The MCP spec's default for openWorldHint is true: a tool that does not say it stays in
 * a closed domain may talk to the outside world. Only an explicit false closes it (red
 * team wave 5: `{readOnlyHint: true}` with a `url` argument was a silent read).
 */
const openWorld = (a: ToolAnnotations) => !isFalse(a.openWorldHint);

/**
 * The action of a call to `name` with `args`, from what is known about the tool.
 * `info` null/undefined: nothing is known (no tools/list seen for it).
 */
export function mcpAction(name: string, info: McpToolInfo | null | undefined, args?: unknown): McpActionResult {
  const reasons: McpActionResult['reasons'] = [];
  const removesByName = nameRemoves(name);
  if (!info) {
    const action: Action = removesByName ? 'delete' : 'write';
    reasons.push({
      level: 'medium',
      reason: `action ${action} from the tool's name: no annotations were seen for this tool (run its server through \`airlock mcp\` once, or pin it with mcpToolActions); a name never makes a read`,
    });
    return { action, origin: 'name', reasons };
  }
  const a = info.annotations ?? {};
  const description = typeof info.description === 'string' ? info.description : '';
  const acts = removesByName ? null : nameActs(name);
  if (isTrue(a.readOnlyHint) && acts) {
    reasons.push({ level: 'high', reason: `the server marks ${name} read-only but its name says it does more (${acts.word}): treated as ${acts.action === 'execute' ? 'an execute' : `a ${acts.action}`}` });
    reasons.push({ level: 'low', reason: `action ${acts.action} from the tool's name (its readOnlyHint is not believed)` });
    return { action: acts.action, origin: 'annotation', reasons };
  }
  if (isTrue(a.readOnlyHint) && !removesByName) {
    // A read-only tool that talks to the open world with a URL or recipient still sends
    // what it is given out (like WebFetch): a transfer.
    const out = openWorld(a) ? outboundArgument(args) : null;
    if (out) {
      reasons.push({ level: 'low', reason: `action transfer from the server's annotations (read-only, but open world with an outbound argument: ${out})` });
      return { action: 'transfer', origin: 'annotation', reasons };
    }
    reasons.push({ level: 'low', reason: 'action read from the server\'s annotations (readOnlyHint)' });
    return { action: 'read', origin: 'annotation', reasons };
  }
  if (isTrue(a.readOnlyHint)) {
    reasons.push({ level: 'high', reason: `the server marks ${name} read-only but its name says it removes something: treated as a delete` });
  }
  let action: Action = 'write';
  const why: string[] = [isTrue(a.readOnlyHint) ? 'its name says it removes' : 'not read-only'];
  if ((removesByName || textRemoves(description)) && !isFalse(a.destructiveHint)) {
    action = 'delete';
    why.push(removesByName ? 'its name says it removes' : 'its description says it removes');
  }
  if (openWorld(a)) {
    const out = outboundArgument(args);
    if (out) {
      action = riskier(action, 'transfer');
      why.push(`open world, with an outbound argument (${out})`);
    }
  }
  if (action === 'write' && isTrue(a.destructiveHint)) {
    reasons.push({ level: 'medium', reason: `the server marks ${name} destructive: it may overwrite or change data irreversibly` });
  }
  if (action === 'write' && nameMoves(name)) {
    reasons.push({ level: 'medium', reason: `${name} moves or renames: the source path stops existing` });
  }
  reasons.unshift({ level: 'low', reason: `action ${action} from the server's annotations (${[...new Set(why)].join('; ')})` });
  return { action, origin: 'annotation', reasons };
}

/** Argument keys that name what a tool acts on, by common MCP server conventions. */
const RESOURCE_KEYS = ['path', 'paths', 'file_path', 'filePath', 'file', 'files', 'source', 'destination', 'target', 'directory', 'dir', 'uri', 'url', 'repo', 'repository'];

/**
 * At most this many resources are judged per call. A call naming more (read_multiple_files
 * with 300 paths) cannot be judged path by path: `mcpResourcesOf` says so and the proxy
 * refuses it, since a path left out could be the one a deny grant is for (black box wave 14:
 * the 65th path of read_multiple_files was never looked at, so a denied file was read). At
 * 4,096 characters each they stay far below request.sock's 1 MiB line.
 */
export const MAX_CALL_RESOURCES = 128;

/**
 * Resources of a call: paths as given (absolute when possible), URLs as their host; `overflow`
 * when some did not fit. `home`: expand `~` and `~/` (the Claude Code hook, as Claude Code
 * does; the proxy leaves them to the server and the daemon checks both spellings).
 */
export function mcpResourcesOf(args: unknown, cwd?: string, home?: string): { resources: string[]; overflow: boolean } {
  const out: string[] = [];
  const seen = new Set<string>();
  let overflow = false;
  if (!args || typeof args !== 'object' || Array.isArray(args)) return { resources: out, overflow };
  const add = (v: unknown) => {
    if (typeof v !== 'string' || !v) return;
    const url = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(\[[^\]]+\]|[^:/?#]+)/i.exec(v);
    let r = url && !v.startsWith('file://') ? url[1].toLowerCase() : v.startsWith('file://') ? v.slice(7) : v;
    if (home && home.startsWith('/') && !url && (r === '~' || r.startsWith('~/'))) r = `${home.replace(/\/+$/, '')}${r.slice(1)}`;
    if (cwd && cwd.startsWith('/') && !url && !r.startsWith('/') && !r.startsWith('~')) r = `${cwd.replace(/\/+$/, '')}/${r}`;
    // A path too long to send whole is cut, but a cut `…/a/a/../../.ssh/id` loses where it
    // leads: servers resolve `..` before they open a path (server-filesystem's path.resolve),
    // so the resolved path is judged. One still too long cannot be opened (PATH_MAX).
    if (r.length > 4096 && !url) r = path.posix.normalize(r);
    r = r.slice(0, 4096);
    if (seen.has(r)) return;
    if (out.length >= MAX_CALL_RESOURCES) {
      overflow = true;
      return;
    }
    out.push(r);
    seen.add(r);
  };
  for (const k of RESOURCE_KEYS) {
    const v = (args as Record<string, unknown>)[k];
    // Every element: the cap is on distinct resources, and one past it is an overflow, not dropped unseen.
    if (Array.isArray(v)) for (const x of v) add(x);
    else add(v);
  }
  return { resources: out, overflow };
}

/** Resources of a call (see mcpResourcesOf; callers that refuse an overflow use that). */
export function mcpResources(args: unknown, cwd?: string): string[] {
  return mcpResourcesOf(args, cwd).resources;
}

/** `server/tool` → [server, tool] (the proxy's and the hook's tool label), or null. */
export function splitMcpTool(tool: string): [string, string] | null {
  const i = tool.indexOf('/');
  if (i <= 0 || i === tool.length - 1) return null;
  return [tool.slice(0, i), tool.slice(i + 1)];
}

/**
 * Would `next` (a later tools/list entry for the same tool) make a tool known as `old` less
 * risky? Such a claim is not taken, whether it comes in a later tools/list or as a second
 * entry of the same name in one list (a server listing `x` as a write, then `x` again as
 * read-only): the first honest annotations stay. A read-only claim for a tool not known as
 * read-only is refused even when its name still makes it a non-read.
 */
export function lowersKnownTool(name: string, old: McpToolInfo, next: McpToolInfo): boolean {
  const claimsReadOnly = next.annotations?.readOnlyHint === true && old.annotations?.readOnlyHint !== true;
  return claimsReadOnly || ACTION_RANK[mcpAction(name, next).action] < ACTION_RANK[mcpAction(name, old).action];
}
