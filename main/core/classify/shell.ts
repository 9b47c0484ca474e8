// Shell command classification: what a command line does, part by part, parsed with a
// real shell parser (mvdan/sh). The daemon runs this on every shell command it receives
// (agent-side classification is a claim, never trusted); `airlock exec` and the Claude
// Code hook use it to fill in the request they send. Pure: no I/O, no environment.
//
// A compound command's action is its riskiest part; every part's resources are listed so
// grants must cover all of them and the core's chain rules see every path.
import type { Action } from '../../contract/common';
import { LIMITS, riskier } from './limits';
import type { CommandClassification, CommandClassifier } from '../ports';
import { classifyArgv, type Arg, type CmdResult, type RiskReason } from './sh-commands';
import { sh, shErrorText, shOps, type ShBinaryCmd, type ShCallExpr, type ShNode, type ShStmt, type ShStmtList, type ShWord } from './sh-ast';
import { hereDocText, resolvePath, sourceOf, wordValue } from './sh-words';

/** Commands longer than this are not parsed (a prompt could not show them anyway). */
export const MAX_COMMAND_CHARS = 128 * 1024;
/** …and commands with more words than this (each word costs parse and copy time). */
export const MAX_TOKENS = 4000;
const MAX_VISITS = 2000;
/** Wall-clock budget for the tree walk (parsing is bounded by the limits above). */
const BUDGET_MS = 500;
/** `sh -c "sh -c '…'"` nesting we follow before giving up (and calling it execute). */
const MAX_DEPTH = 8;
const MAX_PARTS = 200;
const PART_TEXT = 300;
/** Targets of `>` that are not files. */
const GIT_HOOK = /(^|\/)\.git\/hooks\//;
const NOT_FILES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty', '/dev/fd/1', '/dev/fd/2']);

type Part = CommandClassification['parts'][number];

/** Thrown when a command is too big or slow to classify; it then counts as execute. */
class TooComplex extends Error {}

/** What a visited statement produced, with the flags pipeline rules need. */
interface Found {
  action: Action;
  download: boolean;
  runsStdin: boolean;
}

interface State {
  cwd: string | undefined;
  parts: Part[];
  /** Null until the first part: an empty command is `other`, `ls` alone is `read`. */
  action: Action | null;
  resources: string[];
  reasons: RiskReason[];
  madeExecutable: Set<string>;
  written: Set<string>;
  /** A git hook this command wrote (a later git commit in the same line runs it). */
  hookWritten: string | null;
  /** Statements visited and a deadline: the daemon classifies on its event loop. */
  visits: number;
  deadline: number;
}


const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + '…' : s);
const oneLine = (s: string) => clip(s.replace(/\s*\n\s*/g, ' ⏎ ').trim().replace(/\s*;$/, ''), PART_TEXT);

function addReason(st: State, r: RiskReason): void {
  if (!st.reasons.some((x) => x.reason === r.reason)) st.reasons.push(r);
}

const raise = (st: State, a: Action) => {
  st.action = st.action === null ? a : riskier(st.action, a);
};

function addPart(st: State, command: string, action: Action, resources: string[]): void {
  raise(st, action);
  const res = [...new Set(resources.map((r) => clip(r, LIMITS.text)))];
  for (const r of res) if (st.resources.length < LIMITS.resources && !st.resources.includes(r)) st.resources.push(r);
  if (st.parts.length < MAX_PARTS) st.parts.push({ command: oneLine(command), action, resources: res });
}

function parse(src: string): { stmts: ShStmt[] } | { error: string } {
  try {
    const f = sh().NewParser().Parse(src, 'command');
    return { stmts: f.Stmts ?? [] };
  } catch (e) {
    return { error: shErrorText(e).replace(/^command:/, '') };
  }
}

/** Statements inside a node (substitutions, bodies of if/for/while/functions…), not descending into them. */
function innerStmts(n: ShNode, deadline = Infinity): ShStmt[] {
  const out: ShStmt[] = [];
  const S = sh();
  let steps = 0;
  S.Walk(n, (x) => {
    if ((++steps & 255) === 0 && Date.now() > deadline) throw new TooComplex();
    if (!x || x === n) return true;
    if (S.NodeType(x) === 'Stmt') {
      out.push(x as ShStmt);
      return false;
    }
    return true;
  });
  return out;
}

function visitList(stmts: ShStmt[], src: string, st: State, depth: number): Found[] {
  const found: Found[] = [];
  for (const s of stmts) found.push(...visitStmt(s, src, st, depth));
  return found;
}

/** Runs `fn` as in a subshell: `cd` inside does not leak out. */
function sub<T>(st: State, fn: () => T): T {
  const cwd = st.cwd;
  try {
    return fn();
  } finally {
    st.cwd = cwd;
  }
}

function visitStmt(stmt: ShStmt, src: string, st: State, depth: number): Found[] {
  if (++st.visits > MAX_VISITS || Date.now() > st.deadline) throw new TooComplex();
  const S = sh();
  const ops = shOps();
  const cmd = stmt.Cmd;
  const kind = cmd ? S.NodeType(cmd) : '';
  const found: Found[] = [];
  const text = sourceOf(src, stmt);

  // Redirections first: their words can hold substitutions, and their targets are resources.
  const redirWrites: string[] = [];
  const redirReads: string[] = [];
  let hereDocBody: { text: string; dynamic: boolean } | null = null;
  for (const r of stmt.Redirs ?? []) {
    for (const inner of [...(r.Word ? innerStmts(r.Word, st.deadline) : []), ...(r.Hdoc ? innerStmts(r.Hdoc, st.deadline) : [])]) {
      found.push(...sub(st, () => visitStmt(inner, src, st, depth)));
    }
    if (ops.hereDoc.has(r.Op)) {
      // Here-document bodies are the raw text (a quoted delimiter keeps backslashes);
      // <<< here-strings are a word like any other.
      hereDocBody = r.Hdoc ? hereDocText(src, r.Hdoc) : wordValue(src, r.Word);
      continue;
    }
    if (ops.dup.has(r.Op) || !r.Word) continue;
    const target = wordValue(src, r.Word);
    const p = resolvePath(target.text, st.cwd, target.dynamic);
    if (ops.writeFile.has(r.Op)) {
      if (!NOT_FILES.has(target.text)) {
        redirWrites.push(p);
        st.written.add(p);
      }
    } else if (ops.readFile.has(r.Op)) redirReads.push(p);
  }

  if (kind === 'CallExpr') {
    const call = cmd as ShCallExpr;
    // Substitutions in words run first, in a subshell. One walk over the whole call:
    // each property read on a mvdan-sh node copies Go data into JS, so read Args once.
    const innerFound: Found[] = [];
    const callText = sourceOf(src, call);
    // Substitutions need `$(`, a backtick or `<(`/`>(` in the text; walking is skipped otherwise.
    if (/\$\(|`|[<>]\(/.test(callText)) {
      for (const inner of innerStmts(call, st.deadline)) innerFound.push(...sub(st, () => visitStmt(inner, src, st, depth)));
    }
    found.push(...innerFound);
    const words: ShWord[] = call.Args ?? [];
    const argv: Arg[] = words.map((w, i) => {
      if ((i & 255) === 255 && Date.now() > st.deadline) throw new TooComplex();
      return wordValue(src, w);
    });
    if (argv.length === 0) {
      if (redirWrites.length) addPart(st, text, 'write', redirWrites);
      return found;
    }
    const r = classifyArgv(argv, { cwd: st.cwd });
    const f = applyResult(r, text, st, depth, innerFound, hereDocBody, redirWrites, redirReads);
    found.push(f);
    return found;
  }

  if (kind === 'BinaryCmd') {
    const b = cmd as ShBinaryCmd;
    if (b.Op === ops.pipe || b.Op === ops.pipeAll) {
      // Each side of a pipe runs in its own subshell.
      const left = sub(st, () => visitStmt(b.X, src, st, depth));
      const right = sub(st, () => visitStmt(b.Y, src, st, depth));
      if (left.some((f) => f.download) && right.some((f) => f.runsStdin)) {
        addReason(st, { level: 'high', reason: 'downloads code and runs it (… | sh)' });
        raise(st, 'execute');
      }
      found.push(...left, ...right);
    } else {
      found.push(...visitStmt(b.X, src, st, depth), ...visitStmt(b.Y, src, st, depth));
    }
  } else if (kind === 'Subshell') {
    found.push(...sub(st, () => visitList((cmd as ShStmtList).Stmts ?? [], src, st, depth)));
  } else if (kind === 'Block') {
    found.push(...visitList((cmd as ShStmtList).Stmts ?? [], src, st, depth));
  } else if (cmd) {
    // if/while/for/case/functions/time/coproc/declare/[[ ]]: classify every statement
    // inside as if it runs (a function body may run later; assume it does).
    found.push(...visitList(innerStmts(cmd, st.deadline), src, st, depth));
  }
  if (redirWrites.length || redirReads.length) addPart(st, text, redirWrites.length ? 'write' : 'read', [...redirReads, ...redirWrites]);
  return found;
}

function applyResult(
  r: CmdResult,
  text: string,
  st: State,
  depth: number,
  innerFound: Found[],
  hereDocBody: { text: string; dynamic: boolean } | null,
  redirWrites: string[],
  redirReads: string[],
): Found {
  let action = r.action;
  const resources = [...r.resources, ...redirReads, ...redirWrites];
  if (redirWrites.length) action = riskier(action, 'write');
  for (const reason of r.reasons) addReason(st, reason);
  if (r.cd !== undefined) st.cwd = r.cd ?? undefined;

  // xargs CMD / find -exec CMD: the inner argv's action counts for this part.
  if (r.argv) {
    const inner = classifyArgv(r.argv, { cwd: st.cwd });
    for (const reason of inner.reasons) addReason(st, reason);
    action = riskier(action, inner.action);
    resources.push(...inner.resources);
  }

  // The program text comes from somewhere we can read: classify it too.
  const script = r.script ?? (r.stdinIsShell && hereDocBody ? hereDocBody : null);
  const downloadedInside = innerFound.some((f) => f.download);
  if (script) {
    if (script.dynamic) {
      addReason(st, downloadedInside
        ? { level: 'high', reason: 'downloads code and runs it (sh -c "$(curl …)")' }
        : { level: 'medium', reason: 'runs shell text computed at run time' });
    } else if (depth >= MAX_DEPTH) {
      addReason(st, { level: 'medium', reason: 'shell nesting too deep to classify' });
    } else {
      classifyInto(script.text, st, depth + 1);
      // `sh -c '…'`, `eval '…'`, `bash <<EOF`: the shell is transparent, its script's
      // parts (already added) are what runs. Keep only what the wrapper itself writes.
      if (resources.length) addPart(st, text, redirWrites.length ? 'write' : 'read', resources);
      return { action: redirWrites.length ? 'write' : 'read', download: false, runsStdin: false };
    }
  } else if ((r.runsStdin || r.runs) && downloadedInside) {
    // bash <(curl …), python <(wget -O- …)
    addReason(st, { level: 'high', reason: 'downloads code and runs it (process substitution)' });
  }
  if (r.runs) {
    if (st.madeExecutable.has(r.runs)) addReason(st, { level: 'high', reason: `makes ${r.runs} executable and then runs it` });
    else if (st.written.has(r.runs)) addReason(st, { level: 'high', reason: `writes or downloads ${r.runs} and then runs it` });
  }
  if (r.runsGitHooks && st.hookWritten) addReason(st, { level: 'critical', reason: `writes a git hook (${st.hookWritten}) and runs git in the same command, which executes it` });
  if (action !== 'read' && !st.hookWritten) st.hookWritten = resources.find((p) => GIT_HOOK.test(p)) ?? null;
  for (const p of r.makesExecutable ?? []) st.madeExecutable.add(p);
  for (const p of r.writes ?? []) st.written.add(p);

  addPart(st, text, action, resources);
  return { action, download: !!r.download, runsStdin: !!r.runsStdin && !script };
}

function classifyInto(src: string, st: State, depth: number): void {
  const parsed = parse(src);
  if ('error' in parsed) {
    addReason(st, { level: 'medium', reason: `could not parse the command (${clip(parsed.error.trim(), 120)}); treated as execute` });
    addPart(st, src, 'execute', []);
    return;
  }
  visitList(parsed.stmts, src, st, depth);
}

export const classifyShell: CommandClassifier = (command: string, cwd?: string): CommandClassification => {
  // Load the parser (first call only) before the clock starts.
  sh();
  shOps();
  const st: State = {
    cwd: cwd && cwd.startsWith('/') ? cwd : undefined,
    parts: [],
    action: null,
    resources: [],
    reasons: [],
    madeExecutable: new Set(),
    written: new Set(),
    hookWritten: null,
    visits: 0,
    deadline: Date.now() + BUDGET_MS,
  };
  if (typeof command !== 'string') command = String(command);
  // Parsing costs ~15 µs per word and the daemon parses on its event loop: refuse to
  // spend seconds on a command no human could review anyway.
  const tokens = command.length > 20_000 ? command.split(/\s+/, MAX_TOKENS + 1).length : 0;
  if (command.length > MAX_COMMAND_CHARS || tokens > MAX_TOKENS) {
    return {
      action: 'execute',
      resources: [],
      parts: [{ command: oneLine(command), action: 'execute', resources: [] }],
      riskReasons: [{ level: 'high', reason: `command too long to classify (${command.length} characters${tokens > MAX_TOKENS ? `, over ${MAX_TOKENS} words` : ''})` }],
    };
  }
  try {
    classifyInto(command, st, 0);
  } catch (e) {
    // Too complex, or a parser crash on hostile input: never let it through as harmless.
    st.action = 'execute';
    addReason(st, e instanceof TooComplex
      ? { level: 'high', reason: 'too complex to classify completely; treated as execute' }
      : { level: 'high', reason: `classifier failed (${clip(shErrorText(e), 120)}); treated as execute` });
  }
  return { action: st.action ?? 'other', resources: st.resources, parts: st.parts, riskReasons: st.reasons };
};

/** One line for a prompt: "rm -rf build → delete /repo/build; …". */
export function summarizeClassification(c: CommandClassification, max: number = LIMITS.summary): string {
  if (c.parts.length === 0) return `${c.action}: (empty command)`;
  const lines = c.parts.map((p) => `${p.command} → ${p.action}${p.resources.length ? ' ' + p.resources.slice(0, 4).join(', ') : ''}`);
  return clip(lines.join('; '), max);
}
