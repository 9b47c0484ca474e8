// The action of an MCP tool call, from the annotations the server declared in tools/list
// (MCP spec "Tool annotations"). Annotations are the server's claim: the daemon lets the
// human pin a tool's action in settings (`mcpToolActions`), which wins over this.
import type { Action } from '../../contract/common';

export interface ToolAnnotations {
  readOnlyHint?: unknown;
  destructiveHint?: unknown;
  openWorldHint?: unknown;
}

/**
 * readOnlyHint → read; openWorldHint → transfer (it talks to the outside world);
 * destructiveHint → delete; any other declared tool → write. A tool never seen in
 * tools/list (a client can call without listing) → execute: we know nothing about it.
 */
export function mcpActionFromAnnotations(a: ToolAnnotations | null | undefined, listed: boolean): Action {
  if (!listed) return 'execute';
  if (a?.openWorldHint === true) return 'transfer';
  if (a?.readOnlyHint === true) return 'read';
  if (a?.destructiveHint === true) return 'delete';
  return 'write';
}

/** Argument keys that name what a tool acts on, by common MCP server conventions. */
const RESOURCE_KEYS = ['path', 'paths', 'file_path', 'filePath', 'file', 'files', 'source', 'destination', 'target', 'directory', 'dir', 'uri', 'url', 'repo', 'repository'];

/** Resources of a call: paths as given (absolute when possible), URLs as their host. */
export function mcpResources(args: unknown, cwd?: string): string[] {
  if (!args || typeof args !== 'object' || Array.isArray(args)) return [];
  const out: string[] = [];
  const add = (v: unknown) => {
    if (typeof v !== 'string' || !v || out.length >= 64) return;
    const url = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?(\[[^\]]+\]|[^:/?#]+)/i.exec(v);
    let r = url && !v.startsWith('file://') ? url[1].toLowerCase() : v.startsWith('file://') ? v.slice(7) : v;
    if (cwd && cwd.startsWith('/') && !url && !r.startsWith('/') && !r.startsWith('~')) r = `${cwd.replace(/\/+$/, '')}/${r}`;
    if (!out.includes(r)) out.push(r.slice(0, 4096));
  };
  for (const k of RESOURCE_KEYS) {
    const v = (args as Record<string, unknown>)[k];
    if (Array.isArray(v)) v.slice(0, 64).forEach(add);
    else add(v);
  }
  return out;
}
