// Claude Code PreToolUse input → an Airlock request. Runs in the daemon (hook-service.ts,
// request.sock `hook.claudeCode`), for the native hook and the Node relay alike: input is
// checked by hand, and anything unexpected becomes a request that asks. The input's own
// types and parser are in ./hook-input.ts (the Node relay loads only that).
import os = require('node:os');
import path = require('node:path');
import type { AskParams } from '../../client';
import { MAX_CALL_RESOURCES, mcpResourcesOf, nameRemoves } from '../../core/classify/mcp';
import { MAX_URI_CHARS, uriTarget } from '../../core/classify/mcp-uri';
import type { CommandClassification } from '../../core/ports';
import { clip, str, type PreToolUseInput } from './hook-input';

export { hookOutput, isAfterToolEvent, parseHookInput, type HookDecision, type HookInputError, type PreToolUseInput } from './hook-input';

/** Request fields without the task (the hook resolves that separately). */
export type HookRequest = Omit<AskParams, 'task'>;

const MAX_STRING_ARG = 8 * 1024;
const MAX_SUMMARY = 2000;
const MAX_TEXT = 4096;
/** main/core/classify/shell.ts MAX_COMMAND_CHARS + 1: longer commands classify as execute. */
const COMMAND_MAX = 128 * 1024 + 1;

/**
 * Tool input as recorded args: long strings (file contents) are cut so the request line
 * stays far below request.sock's 1 MiB cap; the length is kept so the prompt can say it.
 */
export function capArgs(input: Record<string, unknown>, depth = 0, cut: { cut: boolean } = { cut: false }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const [k, v] of Object.entries(input)) {
    if (++n > 64) {
      cut.cut = true;
      break;
    }
    if (typeof v === 'string') {
      if (v.length > MAX_STRING_ARG) cut.cut = true;
      out[k] = v.length > MAX_STRING_ARG ? `${v.slice(0, MAX_STRING_ARG)}…[${v.length - MAX_STRING_ARG} more characters]` : v;
    } else if (Array.isArray(v)) {
      if (v.length > 64) cut.cut = true;
      out[k] = v.slice(0, 64).map((x) => {
        if (x && typeof x === 'object') {
          if (depth < 3 && !Array.isArray(x)) return capArgs(x as Record<string, unknown>, depth + 1, cut);
          cut.cut = true;
          return Array.isArray(x) ? '[array]' : '[object]';
        }
        if (typeof x === 'string' && x.length > MAX_STRING_ARG) cut.cut = true;
        return typeof x === 'string' ? clip(x, MAX_STRING_ARG) : x;
      });
    } else if (v && typeof v === 'object') {
      if (depth >= 3) cut.cut = true;
      out[k] = depth < 3 ? capArgs(v as Record<string, unknown>, depth + 1, cut) : '[object]';
    } else out[k] = v;
  }
  return out;
}

/**
 * The path the tool will really touch. Claude Code expands `~` and `~/` to the home
 * directory and resolves relative paths against the session's cwd, so the hook must too:
 * `~/.local/bin/git` left as `<cwd>/~/.local/bin/git` would be covered by a grant on the
 * workspace (test/integration/redteam-hook.test.ts). `..` is kept: the daemon resolves it
 * physically, after symbolic links (main/os/real-path.ts).
 */
function absolute(p: string, cwd: string, home: string): string {
  let r = p;
  if (p === '~' || p.startsWith('~/')) r = home.replace(/\/+$/, '') + p.slice(1);
  else if (!p.startsWith('/') && cwd.startsWith('/')) r = cwd.replace(/\/+$/, '') + '/' + p;
  // Too long to send whole (it is cut to MAX_TEXT): a cut `…/a/a/../../.ssh/id` loses where it
  // leads, and tools resolve `..` before they open a path, so the resolved path is judged.
  return r.length > MAX_TEXT ? path.posix.normalize(r) : r;
}

/**
 * The host WebFetch will really connect to, parsed as Claude Code (Node's WHATWG URL)
 * parses it. A hand-written regex disagreed on `https://evil\\@good/` and
 * `https://u@good:443@evil/` (it said good, the fetch goes to evil), which let a transfer
 * grant for one host cover another. Anything URL cannot parse is kept whole, so no host
 * grant covers it.
 */
function hostOf(url: string): string {
  try {
    const u = new URL(url);
    return u.hostname ? u.hostname.toLowerCase() : url;
  } catch {
    return url;
  }
}

/**
 * Every path field of a file tool's input, the main one first. The hook does not know
 * which of `file_path`, `notebook_path` and `path` a given Claude Code version acts on, so
 * an input that names two paths gets both judged (every resource must be covered): a
 * NotebookEdit with a harmless `file_path` and `notebook_path` = `.git/hooks/pre-commit`
 * was allowed by a workspace grant (test/integration/redteam-hook.test.ts).
 */
function pathsOf(ti: Record<string, unknown>, main: string, cwd: string, home: string): string[] {
  const out = [main];
  for (const k of ['file_path', 'notebook_path', 'path']) {
    const v = str(ti[k]);
    if (v === null) continue;
    const p = clip(absolute(v, cwd, home), MAX_TEXT);
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

/**
 * The directory a glob pattern names before its first wildcard, when it leaves the
 * directory it is matched in (absolute, `~`, or with `..`); null for `src/**` or `*.ts`.
 */
function globDirectory(pattern: string): string | null {
  const literal = pattern.split(/[*?[{]/)[0] ?? '';
  const dir = literal.includes('/') ? literal.slice(0, literal.lastIndexOf('/') + 1) || '/' : '';
  if (!dir) return null;
  if (dir.startsWith('/') || dir.startsWith('~/') || /(^|\/)\.\.(\/|$)/.test(dir)) return dir.length > 1 ? dir.replace(/\/+$/, '') : dir;
  return null;
}

const READ_TOOLS = new Set(['Read', 'Glob', 'Grep', 'LS', 'NotebookRead']);
const WRITE_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);
/** Claude Code's own bookkeeping tools: nothing outside the session changes. */
const INTERNAL_TOOLS = new Set(['TodoWrite', 'Task', 'Agent', 'ExitPlanMode', 'BashOutput', 'KillBash', 'KillShell', 'ListMcpResourcesTool']);
/**
 * Tools that load instructions or scripts from files on disk and act on them: a custom
 * slash command can run shell lines (`!` prefix) and a skill can ship scripts. Claude Code
 * itself asks before both; answering "allow" as for a read would skip that prompt, so they
 * are `execute`, grantable per name ("Skill pdf for this task").
 */
const LOADER_TOOLS: Record<string, string[]> = { SlashCommand: ['command', 'name'], Skill: ['skill', 'command', 'name'] };

/**
 * Maps one tool call. `classify` is only called for Bash (it loads the shell parser). `home`:
 * the hook process's home directory (HOME, as Claude Code expands `~`), sent by the hook.
 */
export function mapToolCall(input: PreToolUseInput, classify: () => (command: string, cwd?: string) => CommandClassification, home: string = os.homedir()): HookRequest {
  const ti = input.tool_input;
  const tool = input.tool_name;
  const cwd = input.cwd;
  const base = { source: 'claude-code' as const, tool, cwd: cwd || undefined, args: capArgs(ti) };

  if (READ_TOOLS.has(tool)) {
    // A path field that is there but not a string (`{"file_path": ["/etc/shadow"]}`) would
    // otherwise fall back to the cwd and be judged as a read of the workspace: ask instead.
    const odd = ['file_path', 'notebook_path', 'path'].filter((k) => ti[k] !== undefined && ti[k] !== null && typeof ti[k] !== 'string');
    if (odd.length) return { ...base, action: 'other', summary: clip(`${tool} with a ${odd.join(', ')} that is not a path: ${JSON.stringify(capArgs(ti))}`, MAX_SUMMARY) };
    const target = str(ti.file_path) ?? str(ti.notebook_path) ?? str(ti.path) ?? cwd;
    const pattern = str(ti.pattern);
    const resource = clip(absolute(target, cwd, home), MAX_TEXT);
    const resources = pathsOf(ti, resource, cwd, home);
    // Glob's pattern is a path too: `/home/u/.ssh/*` or `../../other/**` lists another
    // directory whatever `path` says, so its literal directory is judged as well.
    if (tool === 'Glob' && pattern) {
      const dir = globDirectory(pattern);
      if (dir !== null) {
        const p = clip(absolute(dir, resource, home), MAX_TEXT);
        if (!resources.includes(p)) resources.push(p);
      }
    }
    return { ...base, action: 'read', resource, resources, summary: clip(`${tool} ${pattern ? `${pattern} in ` : ''}${resource}`, MAX_SUMMARY) };
  }
  if (WRITE_TOOLS.has(tool)) {
    // As for reads: a path field that is not a string, or no path at all, would otherwise
    // become the cwd itself (`/repo/`), which a workspace write grant covers (red team
    // wave 5: `{"file_path": ["~/.bashrc"]}` was a covered write of the workspace). Ask.
    const odd = ['file_path', 'notebook_path', 'path'].filter((k) => ti[k] !== undefined && ti[k] !== null && typeof ti[k] !== 'string');
    const named = (tool === 'NotebookEdit' ? str(ti.notebook_path) ?? str(ti.file_path) : str(ti.file_path) ?? str(ti.notebook_path)) ?? '';
    if (odd.length || !named.trim()) {
      return { ...base, action: 'other', summary: clip(`${tool} with ${odd.length ? `a ${odd.join(', ')} that is not a path` : 'no file to write'}: ${JSON.stringify(capArgs(ti))}`, MAX_SUMMARY) };
    }
    const file = named;
    const resource = clip(absolute(file, cwd, home), MAX_TEXT);
    const resources = pathsOf(ti, resource, cwd, home);
    let what = '';
    if (tool === 'Write') what = ` (${(str(ti.content) ?? '').length} characters)`;
    else if (tool === 'Edit') what = `: replace ${JSON.stringify(clip(str(ti.old_string) ?? '', 60))} with ${JSON.stringify(clip(str(ti.new_string) ?? '', 60))}${ti.replace_all ? ' everywhere' : ''}`;
    else if (tool === 'MultiEdit') what = ` (${Array.isArray(ti.edits) ? ti.edits.length : 0} edits)`;
    else if (tool === 'NotebookEdit') what = ` (${str(ti.edit_mode) ?? 'replace'} cell ${str(ti.cell_id) ?? ''})`;
    return { ...base, action: 'write', resource, resources, summary: clip(`${tool} ${resource}${what}${resources.length > 1 ? ` (also names ${resources.slice(1).join(', ')})` : ''}`, MAX_SUMMARY) };
  }
  if (tool === 'Bash') {
    // A command that is not a string (`["rm","-rf","~"]`, a number, missing) would be
    // classified as the empty line, a harmless read, and shown as "Bash ": ask, saying what came.
    if (typeof ti.command !== 'string') return { ...base, action: 'execute', summary: clip(`Bash with a command that is not a string: ${JSON.stringify(capArgs(ti)) ?? 'nothing'}`, MAX_SUMMARY) };
    const command = ti.command;
    const c = classify()(command, cwd || undefined);
    const parts = c.parts.map((p) => `${p.command} → ${p.action}${p.resources.length ? ' ' + p.resources.slice(0, 3).join(', ') : ''}`).join('; ');
    return {
      ...base,
      // The daemon re-classifies args.command itself; this is our honest claim.
      action: c.action,
      resource: c.resources[0],
      resources: c.resources.slice(0, 256),
      summary: clip(parts || `Bash ${command}`, MAX_SUMMARY),
      // The command goes whole (up to just over the classifier's limit, so the daemon
      // sees "too long" rather than a harmless-looking prefix); other fields are capped.
      args: { ...capArgs(ti), command: command.slice(0, COMMAND_MAX) },
    };
  }
  if (tool === 'WebFetch') {
    const url = str(ti.url) ?? '';
    const host = hostOf(url);
    return { ...base, action: 'transfer', resource: clip(host, MAX_TEXT), resources: [clip(host, MAX_TEXT)], summary: clip(`WebFetch ${url}`, MAX_SUMMARY) };
  }
  if (tool === 'WebSearch') {
    // The query leaves through Anthropic's API (the search runs server-side).
    const query = str(ti.query) ?? '';
    const host = 'api.anthropic.com';
    return { ...base, action: 'transfer', resource: host, summary: clip(`WebSearch ${JSON.stringify(query)}`, MAX_SUMMARY) };
  }
  const mcp = /^mcp__(.+?)__(.+)$/.exec(tool);
  if (mcp) {
    const [, server, name] = mcp;
    // The hook sees only the name. It never makes a read: the daemon replaces this claim
    // with what `airlock mcp` learned from the server's tools/list, or the human's pin
    // (broker.normalize, one mapping in core/classify/mcp.ts).
    const action = nameRemoves(name) ? 'delete' : 'write';
    const target = str(ti.path) ?? str(ti.file_path) ?? str(ti.url) ?? undefined;
    const resource = target ? clip(target.includes('://') ? hostOf(target) : absolute(target, cwd, home), MAX_TEXT) : undefined;
    // Every path the tool is given, as the proxy judges them (core/classify/mcp.ts): `paths`,
    // `source`/`destination` … were not looked at, so server-filesystem's read_multiple_files
    // of a denied file (or of a key: no secret read for the chain) was a plain read, and a
    // move_file out of a denied directory had no resource at all (black box wave 14). Taken
    // from the whole input, before capArgs cuts arrays; more than can be judged is asked.
    const found = mcpResourcesOf(ti, cwd, home);
    const resources = [...new Set([...(resource ? [resource] : []), ...found.resources])].slice(0, MAX_CALL_RESOURCES);
    const cut = { cut: false };
    const capped = capArgs(ti, 0, cut);
    return {
      source: 'mcp',
      tool: `${server}/${name}`,
      action,
      resource,
      ...(resources.length ? { resources } : {}),
      summary: clip(`MCP ${server}/${name} ${JSON.stringify(capped)}`, MAX_SUMMARY),
      // The tool's input goes under `arguments` (what grant conditions see), never beside
      // the fields the daemon reads (an input field named "annotations" stays an argument).
      args: { arguments: capped, via: 'claude-code', ...(cut.cut ? { truncated: true } : {}), ...(found.overflow ? { pathsCut: true } : {}) },
      cwd: cwd || undefined,
    };
  }
  const loader = LOADER_TOOLS[tool];
  if (loader) {
    const name = loader.map((k) => str(ti[k])).find((v) => v !== null) ?? '';
    const resource = clip(`${tool}:${name.trim().split(/\s+/)[0] ?? ''}`, MAX_TEXT);
    return { ...base, action: 'execute', resource, resources: [resource], summary: clip(`${tool} ${name}`, MAX_SUMMARY) };
  }
  if (tool === 'ReadMcpResourceTool') {
    // A read through an MCP server of what it calls a resource, often a file
    // (`file:///home/u/.ssh/id_ed25519` from a filesystem server): the resource is named so
    // the risk rules and the task's chain memory see a secret read like a Read of that path
    // (red team wave 5: it was an internal read with no resource at all).
    // Every reading of the URI a server may take is judged (core/classify/mcp-uri.ts, the
    // proxy's resources/read too): `file:/x`, `FILE://localhost/x`, `file://host/x`, percent
    // escapes; an http(s) resource is a transfer to its host. Too long a URI is not judged: asked.
    const server = str(ti.server) ?? '';
    const uri = str(ti.uri) ?? '';
    const summary = clip(`ReadMcpResourceTool ${server} ${uri}`, MAX_SUMMARY);
    if (uri.length > MAX_URI_CHARS) return { ...base, action: 'other', summary };
    const t = uriTarget(uri, server, cwd);
    const resources = t.resources.map((r) => clip(r.startsWith('~') ? absolute(r, cwd, home) : r, MAX_TEXT));
    return { ...base, action: t.action, resource: resources[0], resources, summary };
  }
  if (INTERNAL_TOOLS.has(tool)) return { ...base, action: 'read', summary: clip(`${tool} (Claude Code internal)`, MAX_SUMMARY) };
  // A tool we do not know: ask.
  return { ...base, action: 'other', summary: clip(`${tool} ${JSON.stringify(capArgs(ti))}`, MAX_SUMMARY) };
}

/** A task name that tells the human which session this is. */
export function taskNameFor(input: PreToolUseInput): string {
  const dir = input.cwd.replace(/\/+$/, '').split('/').pop() || input.cwd || '?';
  return clip(`Claude Code ${dir} (${input.session_id.slice(0, 8) || 'no session'})`, 256);
}
