// A grant in words (issue 11 item 6): people read "allows writes under /repo/src/ by
// fs.write, in task “fix CI”, until the task ends", not `{Edit,MultiEdit,Write}` and
// `/repo/src/**`. Shared by the web UI, the tray app and the CLI. Pure: no Node, no DOM.

export interface GrantLike {
  effect: 'allow' | 'deny';
  /** One action, `*`, or a list of actions. */
  action: string | readonly string[];
  source?: string | null;
  tool?: string | null;
  resource?: string | null;
  key?: string | null;
  task?: string | null;
  expiresAt?: number | string | null;
  usesLeft?: number | null;
  uses?: number | null;
  /** The grant's condition (CEL over the request's args), as the human wrote it. */
  whenText?: string | null;
}

const actions = (a: string | readonly string[]): string[] => (typeof a === 'string' ? [a] : [...a]);

const HIGH_IMPACT = new Set(['write', 'delete', 'transfer', 'execute', '*']);
const VERB: Record<string, string> = {
  read: 'reads',
  write: 'writes',
  delete: 'deletes',
  transfer: 'transfers',
  execute: 'runs of commands',
  sign: 'SSH signatures',
  other: 'other actions',
  '*': 'every action',
};

/** `{a,b,c}` → `a, b or c`; a single pattern stays as it is. */
export function alternatives(glob: string): string[] {
  const m = /^\{([^{}]*)\}$/.exec(glob);
  return m ? m[1]!.split(',').map((x) => x.trim()).filter(Boolean) : [glob];
}

function orList(xs: string[]): string {
  return xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}`;
}

/** What a resource glob covers, in words. */
export function resourceInWords(glob: string | null | undefined): string {
  if (!glob || glob === '**' || glob === '*') return 'anything';
  const parts = alternatives(glob).map((g) => {
    if (g === '**' || g === '*') return 'anything';
    if (g.endsWith('/**') && !/[*?[\]{}]/.test(g.slice(0, -3))) return `anything under ${g.slice(0, -2)}`;
    if (g.endsWith('/*') && !g.slice(0, -2).includes('*')) return `files directly in ${g.slice(0, -1)}`;
    if (!/[*?[\]{}]/.test(g)) return `exactly ${g}`;
    return `what matches ${g}`;
  });
  return orList(parts);
}

/** What a tool glob covers, in words (a shell command pattern reads as the command). */
export function toolInWords(glob: string | null | undefined): string {
  if (!glob || glob === '*' || glob === '**') return 'any tool';
  const parts = alternatives(glob).map((g) => (g.endsWith(' *') ? `any \`${g.slice(0, -2)}\` command` : /[*?]/.test(g) ? `tools matching ${g}` : g));
  return orList(parts);
}

/** True for an allow of a high-impact action over any resource or any tool: worth a warning. */
export function isWildcardAllow(g: GrantLike): boolean {
  if (g.effect !== 'allow' || !actions(g.action).some((a) => HIGH_IMPACT.has(a))) return false;
  const anyRes = !g.resource || g.resource === '*' || g.resource === '**' || g.resource === '/**' || g.resource === '~/**';
  const anyTool = !g.tool || g.tool === '*' || g.tool === '**';
  return anyRes || (anyTool && actions(g.action).some((a) => a === '*' || a === 'execute'));
}

/** The whole grant as one sentence, e.g. "Allows writes by fs.write to anything under /srv/docs/ — in this task only, until it ends". */
export function grantInWords(g: GrantLike, taskName?: string | null, now = Date.now()): string {
  const verb = g.effect === 'allow' ? 'Allows' : 'Denies';
  const what = orList(actions(g.action).map((a) => VERB[a] ?? a));
  const by = toolInWords(g.tool);
  const res = resourceInWords(g.resource);
  const src = g.source && g.source !== '*' ? ` (from ${g.source})` : '';
  const key = g.key ? ` with key ${g.key}` : '';
  const scope = g.task ? `in task “${taskName ?? g.task}” only` : 'in every task';
  const exp = g.expiresAt === null || g.expiresAt === undefined ? (g.task ? 'until the task ends' : 'with no end') : `until ${new Date(typeof g.expiresAt === 'number' ? g.expiresAt : Date.parse(g.expiresAt)).toLocaleString()}`;
  const uses = g.usesLeft ?? g.uses;
  const left = uses !== null && uses !== undefined ? `, ${uses} use${uses === 1 ? '' : 's'} left` : '';
  void now;
  const when = g.whenText ? `, when ${g.whenText}` : '';
  return `${verb} ${what} by ${by} on ${res}${src}${key}${when} — ${scope}, ${exp}${left}`;
}
