// "Say what will happen" (issue 11 item 3): a plain-language consequence computed by the
// daemon from the disk, never taken from the agent's words.
// - delete: what and how much ("deletes build/: 34 files, 2.1 MB"; "at least" when the
//   bounded walk stopped early);
// - Edit / MultiEdit / Write (Claude Code tool inputs): a unified diff against the file on
//   disk;
// - transfer: the destination host or URL; `git push <remote>` resolves the remote's URL
//   from the repository's config.
// Pure: the disk is read through the ConsequenceProbe port, which bounds every look.
import * as path from 'node:path';
import type { ConsequenceProbe } from './ports';
import type { CoreRequest } from './request';
import { unifiedDiff, type Diff } from './unified-diff';

export interface Consequence {
  lines: string[];
  diff?: Diff & { path: string; note?: string };
}

const MAX_PATHS = 5;
const MAX_LINES = 8;

/** 2_100_000 → "2.1 MB" (SI, as `du --si` and file managers say it). */
export function sizeText(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n / 1000;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${v >= 100 ? Math.round(v) : v.toFixed(1)} ${units[u]}`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

/** A path as a person reads it: relative to the working directory when inside it. */
function shown(p: string, cwd: string | null, dir: boolean): string {
  let s = p;
  if (cwd && p.startsWith('/')) {
    const rel = path.relative(cwd, p);
    if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) s = rel;
  }
  return dir && !s.endsWith('/') ? `${s}/` : s;
}

/** One delete target: "deletes build/: 34 files, 2.1 MB". */
export function deleteLine(p: string, probe: ConsequenceProbe, cwd: string | null): string {
  const m = probe.measure(p);
  switch (m.kind) {
    case 'missing':
      return `deletes ${shown(p, cwd, false)}: nothing there now`;
    case 'link':
      return `deletes ${shown(p, cwd, false)}: a symbolic link (what it points to stays)`;
    case 'file':
      return `deletes ${shown(p, cwd, false)}: 1 file, ${sizeText(m.bytes)}`;
    case 'other':
      return `deletes ${shown(p, cwd, false)}: a special file`;
    case 'dir': {
      const atLeast = m.capped ? 'at least ' : '';
      return `deletes ${shown(p, cwd, true)}: ${atLeast}${plural(m.files, 'file')}, ${atLeast}${sizeText(m.bytes)}`;
    }
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
/** The hook cuts long strings (integrations/claude-code/map.ts capArgs): such a value is not the real one. */
const CUT = /…\[\d+ more characters\]$/;

/**
 * The file after a Claude Code Edit / MultiEdit / Write, from its tool input and the file
 * now; or why it cannot be known. Mirrors Claude Code: an Edit whose old_string is not in
 * the file (or is there more than once without replace_all) fails there, so it changes nothing.
 */
export function applyFileTool(tool: string, input: Record<string, unknown>, current: string | null): { after: string } | { note: string } {
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  if (tool === 'Write') {
    const content = str(input.content);
    if (content === null) return { note: 'no content given' };
    if (CUT.test(content)) return { note: 'the content was cut before it reached Airlock; the diff shows only its start' };
    return { after: content };
  }
  const edits: Record<string, unknown>[] = tool === 'MultiEdit' ? (Array.isArray(input.edits) ? input.edits.filter(isObject) : []) : [input];
  if (current === null) return { note: 'the file does not exist, so this edit will fail' };
  let text = current;
  for (const e of edits.slice(0, 100)) {
    const oldS = str(e.old_string);
    const newS = str(e.new_string);
    if (oldS === null || newS === null) return { note: 'an edit without old_string/new_string' };
    if (CUT.test(oldS) || CUT.test(newS)) return { note: 'an edit was cut before it reached Airlock; no diff' };
    if (oldS === '') return { note: 'an empty old_string: the edit will fail' };
    const count = text.split(oldS).length - 1;
    if (count === 0) return { note: `old_string not found in the file: the edit will fail` };
    if (count > 1 && e.replace_all !== true) return { note: `old_string occurs ${count} times and replace_all is not set: the edit will fail` };
    text = e.replace_all === true ? text.split(oldS).join(newS) : text.replace(oldS, () => newS);
  }
  return { after: text };
}

const FILE_TOOLS = new Set(['Edit', 'MultiEdit', 'Write']);

function fileDiff(req: CoreRequest, probe: ConsequenceProbe): Consequence['diff'] | undefined {
  if (req.source !== 'claude-code' || !FILE_TOOLS.has(req.tool) || !isObject(req.args) || !req.resource?.startsWith('/')) return undefined;
  const file = req.resource;
  const name = shown(file, req.cwd, false);
  const cur = probe.readText(file);
  if ('refused' in cur) return { path: file, text: '', added: 0, removed: 0, truncated: false, note: `no diff: ${cur.refused}` };
  const before = 'text' in cur ? cur.text : null;
  const r = applyFileTool(req.tool, req.args, before);
  if ('note' in r) {
    if (req.tool === 'Write' && typeof req.args.content === 'string') {
      const d = unifiedDiff(before ?? '', req.args.content, name, { beforeLabel: before === null ? '/dev/null' : undefined });
      return { path: file, ...d, truncated: true, note: r.note };
    }
    return { path: file, text: '', added: 0, removed: 0, truncated: false, note: r.note };
  }
  const d = unifiedDiff(before ?? '', r.after, name, { beforeLabel: before === null ? '/dev/null' : undefined });
  return { path: file, ...d, ...(before === null ? { note: 'a new file' } : d.text === '' ? { note: 'no change to the file' } : {}) };
}

/** `https://user:token@host/x` → `https://user:***@host/x`: a prompt never shows a password. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:\s]*):[^/@\s]*@/i, '$1:***@');
}

function transferLines(req: CoreRequest, probe: ConsequenceProbe): string[] {
  const out: string[] = [];
  const parts = req.parts?.length ? req.parts.filter((p) => p.action === 'transfer') : req.action === 'transfer' ? [{ command: req.summary, action: req.action, resources: req.resources }] : [];
  for (const p of parts) {
    const where: string[] = [];
    for (const r of p.resources) {
      const remote = /^remote:(.+)$/.exec(r);
      if (remote) {
        const url = req.cwd ? probe.gitRemoteUrl(req.cwd, remote[1]!) : null;
        where.push(url ? `${redactUrl(url)} (remote ${remote[1]})` : `remote ${remote[1]} (no URL found in the repository's config)`);
      } else if (!r.startsWith('/')) where.push(r);
    }
    // A URL written in the command says more than its host.
    const urls = (p.command.match(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"`|;&<>]+/gi) ?? []).slice(0, 3).map(redactUrl);
    const dest = [...new Set([...urls, ...where.filter((w) => !urls.some((u) => u.includes(`//${w}`)))])];
    if (dest.length === 0) continue;
    const verb = /(^|\s)git\s.*\bpush\b/.test(p.command) ? 'pushes to' : 'sends to / fetches from';
    out.push(`${verb} ${dest.slice(0, 4).join(', ')}`);
  }
  if (req.egress) out.push(`connects to ${req.egress.host}:${req.egress.port}${req.egress.address ? ` (${req.egress.address})` : ''}`);
  return out;
}

/** What this request will do, in words and (for a file tool) as a diff; undefined when there is nothing to add. */
export function consequenceOf(req: CoreRequest, probe: ConsequenceProbe): Consequence | undefined {
  const lines: string[] = [];
  const deletes = req.parts?.length ? req.parts.filter((p) => p.action === 'delete').flatMap((p) => p.resources) : req.action === 'delete' ? req.resources : [];
  const targets = [...new Set(deletes.filter((r) => r.startsWith('/')))];
  for (const t of targets.slice(0, MAX_PATHS)) lines.push(deleteLine(t, probe, req.cwd));
  if (targets.length > MAX_PATHS) lines.push(`and ${targets.length - MAX_PATHS} more paths`);
  lines.push(...transferLines(req, probe));
  const diff = fileDiff(req, probe);
  if (diff) {
    if (diff.note && diff.text === '') lines.push(`${req.tool} ${shown(diff.path, req.cwd, false)}: ${diff.note}`);
    else lines.push(`${req.tool === 'Write' ? 'writes' : 'changes'} ${shown(diff.path, req.cwd, false)}: +${diff.added} −${diff.removed} lines${diff.note ? ` (${diff.note})` : ''}`);
  }
  if (!lines.length && !diff) return undefined;
  return { lines: lines.slice(0, MAX_LINES), ...(diff && diff.text ? { diff } : {}) };
}
