// Shell command classification: what a command line does, part by part, parsed with a
// real shell parser (mvdan/sh). The daemon runs this on every shell command it receives
// (agent-side classification is a claim, never trusted); `airlock exec` and the Claude
// Code hook use it to fill in the request they send. Pure: no I/O, no environment.
//
// A compound command's action is its riskiest part; every part's resources are listed so
// grants must cover all of them and the core's chain rules see every path.
// Over 400 lines on purpose: one walk over the shell syntax tree, node kind by node kind;
// the per-program rules already live in sh-commands.ts, sh-readonly.ts and friends.
import type { Action } from '../../contract/common';
import { LIMITS, riskier } from './limits';
import type { CommandClassification, CommandClassifier, GitTreeSpec } from '../ports';
import { classifyArgv, type Arg, type CmdResult, type RiskReason } from './sh-commands';
import { isClosedRead } from './sh-readonly';
import { assignVerdict, prefixVerdict } from './sh-env';
import { findHazards } from './sh-hazards';
import { throughAliases, type Alias } from './sh-links';
import { isWithin } from './path-within';
import { cpuMs } from './cpu-clock';
import { sh, shErrorText, shOps, type ShBinaryCmd, type ShCallExpr, type ShNode, type ShStmt, type ShStmtList, type ShWord } from './sh-ast';
import { charIndex, hereDocText, isUnplaced, resolvePath, sourceOf, trackUnplaced, withRawPaths, wordValue, wordValues } from './sh-words';

/** Commands longer than this are not parsed (a prompt could not show them anyway). */
export const MAX_COMMAND_CHARS = 128 * 1024;
/** …and commands with more words than this (each word costs parse and copy time). */
export const MAX_TOKENS = 4000;
/** …and one command's arguments after brace expansion (each word can become 64). */
const MAX_ARGV = 4000;
const MAX_VISITS = 2000;
/** CPU budget (ms, ./cpu-clock.ts) for the tree walk (parsing is bounded by the limits above). */
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
  /** The working directory the command was given (cd changes `cwd`, not this). */
  origin: string | undefined;
  parts: Part[];
  /** Null until the first part: an empty command is `other`, `ls` alone is `read`. */
  action: Action | null;
  resources: string[];
  reasons: RiskReason[];
  madeExecutable: Set<string>;
  written: Set<string>;
  /** A git hook this command wrote (a later git commit in the same line runs it). */
  hookWritten: string | null;
  /** Links, copies and moves made by earlier parts (sh-links.ts), and trees git checked out. */
  aliases: Alias[];
  trees: string[];
  /** What earlier parts may have changed in a repository: the index and HEAD (git add/commit), anything else, nothing. */
  changedBefore: 'index' | 'other' | null;
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

function addPart(st: State, command: string, action: Action, resources: string[], unlisted?: string, exempt = false, gitTree?: GitTreeSpec): void {
  // A path an earlier part of the line made (a link, a copy, a move) is judged as what it
  // stands for too (sh-links.ts); one under a tree git just checked out may be a link no word
  // names, so the part asks (`git checkout x && cat k/id_x` read the key through a committed link).
  resources = [...resources, ...throughAliases(resources, st.aliases)];
  const tree = exempt ? undefined : st.trees.find((t) => resources.some((r) => r !== t && r.startsWith('/') && isWithin(r, t)));
  if (tree !== undefined && !unlisted) {
    unlisted = `an earlier part of the line checked out ${clip(tree, 60)}, where a symbolic link from the repository may lead this path anywhere`;
    addReason(st, { level: 'high', reason: `${unlisted}: asked each time` });
  }
  raise(st, action);
  // A part that changes something at a path nobody can place (`cd -; echo x > y`, `> ~alice/x`)
  // is covered by no grant but one for anything: a command pattern took it for a file inside
  // the task's directory, and no path grant or deny can judge it (blackbox9).
  const lost = action === 'read' || unlisted ? undefined : resources.find(isUnplaced);
  if (lost !== undefined) {
    unlisted = `${clip(lost, 80)} is in a directory Airlock cannot tell (after \`cd -\`, \`pushd +N\`, \`cd\` to a computed place, or a \`~user\`/\`~-\` word)`;
    addReason(st, { level: 'medium', reason: `${unlisted}: no grant covers that, so it asks each time` });
  }
  const res = [...new Set(resources.map((r) => clip(r, LIMITS.text)))];
  for (const r of res) if (st.resources.length < LIMITS.resources && !st.resources.includes(r)) st.resources.push(r);
  if (st.parts.length < MAX_PARTS) st.parts.push({ command: oneLine(command), action, resources: res, ...(unlisted ? { unlisted } : {}), ...(gitTree ? { gitTree } : {}) });
  else if ((unlisted || gitTree) && !st.parts[MAX_PARTS - 1].unlisted) {
    // A part past the cap still writes what it does: its files were not placed (or not yet
    // listed), so the line stays covered by no grant for a tree.
    st.parts[MAX_PARTS - 1].unlisted = `a part past the ${MAX_PARTS}th (${clip(oneLine(command), 60)}) writes files Airlock cannot list`;
    addReason(st, { level: 'medium', reason: `${st.parts[MAX_PARTS - 1].unlisted}: no grant covers that, so it asks each time` });
  }
}

/**
 * mvdan/sh continues a comment that ends in a backslash onto the next line; bash and dash
 * end the comment at the newline and run that line (`ls # x\⏎rm -rf D` runs rm). Such
 * backslashes are blanked (same length, so offsets hold) and the text parsed again.
 */
function uncontinueComments(src: string): string | null {
  if (!src.includes('#') || !/\\\r?\n/.test(src)) return null;
  const S = sh();
  let fixed: string | null = null;
  try {
    S.Walk(S.NewParser(S.KeepComments(true)).Parse(src, 'command'), (n) => {
      if (n && S.NodeType(n) === 'Comment') {
        const a = charIndex(fixed ?? src, n.Pos().Offset());
        const b = charIndex(fixed ?? src, n.End().Offset());
        const raw = (fixed ?? src).slice(a, b);
        if (/\\\r?(\n|$)/.test(raw)) fixed = (fixed ?? src).slice(0, a) + raw.replace(/\\(?=\r?(\n|$))/g, ' ') + (fixed ?? src).slice(b);
      }
      return true;
    });
  } catch {
    return null;
  }
  return fixed;
}

function parse(src: string): { stmts: ShStmt[]; file: ShNode; src: string } | { error: string } {
  try {
    const fixed = uncontinueComments(src);
    if (fixed !== null) src = fixed;
    const f = sh().NewParser().Parse(src, 'command');
    return { stmts: f.Stmts ?? [], file: f, src };
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
    if ((++steps & 255) === 0 && cpuMs() > deadline) throw new TooComplex();
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
  if (++st.visits > MAX_VISITS || cpuMs() > st.deadline) throw new TooComplex();
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
    if (!r.Word) continue;
    // bash expands braces in a redirection's word too: one word is the file (`> {,lnk/n,}` is
    // `> lnk/n`); more is an "ambiguous redirect" that writes nothing (kept as written).
    const targets = wordValues(src, r.Word);
    const target = targets.length === 1 ? targets[0]! : wordValue(src, r.Word);
    // `>&2`, `<&0`, `>&-` duplicate descriptors; `>& file` (bash) writes a file.
    if (ops.dup.has(r.Op) && /^(\d+-?|-)$/.test(target.text)) continue;
    // `> >(cmd)`: the target is a pipe to a command, classified with the substitutions above.
    if (/^[<>]\(/.test(target.text)) continue;
    const p = resolvePath(target.text, st.cwd, target.dynamic);
    const net = /^\/dev\/(tcp|udp)\/([^/]+)/.exec(target.text);
    if (net) {
      // bash opens a network connection for /dev/tcp/HOST/PORT.
      addReason(st, { level: 'high', reason: `redirection to ${target.text.slice(0, 80)} opens a network connection` });
      addPart(st, text, 'transfer', [net[2].toLowerCase()]);
      continue;
    }
    if (target.dynamic && (!/^[~/.\w]/.test(target.text) || target.text.startsWith('/dev/'))) {
      // A target computed at run time could be /dev/tcp/HOST/PORT (and HOST a DNS name
      // that carries data out).
      addReason(st, { level: 'medium', reason: `redirection to ${target.text.slice(0, 80)}, a path computed at run time (it could be /dev/tcp/…)` });
      addPart(st, text, 'transfer', [p]);
      continue;
    }
    if (ops.writeFile.has(r.Op) || (ops.dup.has(r.Op) && r.Op === ops.dupOut)) {
      if (!NOT_FILES.has(target.text)) {
        redirWrites.push(p);
        st.written.add(p);
      }
    } else if (ops.readFile.has(r.Op) || ops.dup.has(r.Op)) redirReads.push(p);
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
    // Bash expands braces in the arguments before the program sees them (`ln {,--backup,} a b`
    // is `ln --backup a b`). The command word stays as written: a name made by an expansion
    // is a command computed at run time (execute).
    const argv: Arg[] = words.flatMap((w, i) => {
      if ((i & 255) === 255 && cpuMs() > st.deadline) throw new TooComplex();
      return i === 0 ? [wordValue(src, w)] : wordValues(src, w);
    });
    if (argv.length > MAX_ARGV) throw new TooComplex();
    // VAR=value before a command puts VAR in its environment; alone, it changes the
    // shell's variable (and the environment of later commands if VAR is exported).
    const assignReasons: RiskReason[] = [];
    for (const a of call.Assigns ?? []) {
      const name = a.Name?.Value ?? '';
      const value = wordValue(src, a.Value);
      // `IFS= read -r line`: IFS there only tells read how to split its input.
      if (name === 'IFS' && argv[0]?.text === 'read' && !argv[0].dynamic) continue;
      const v = argv.length ? prefixVerdict(name, value.text, value.dynamic) : assignVerdict(name, value.text, value.dynamic);
      if (v) assignReasons.push(v);
    }
    if (argv.length === 0) {
      if (assignReasons.length) {
        for (const r of assignReasons) addReason(st, r);
        addPart(st, text, 'execute', []);
      }
      if (redirWrites.length) addPart(st, text, 'write', redirWrites);
      return found;
    }
    const r = classifyArgv(argv, { cwd: st.cwd, origin: st.origin });
    if (assignReasons.length) {
      // The variable reaches whatever runs, a transparent `sh -c` included.
      r.action = 'execute';
      r.scriptOpaque = true;
      r.reasons.unshift(...assignReasons);
    }
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
        // The reason quotes both sides, so the prompt shows which download feeds which shell.
        const q = (n: ShNode) => {
          const t = sourceOf(src, n).replace(/\s+/g, ' ').trim();
          return `\`${t.length > 100 ? `${t.slice(0, 99)}…` : t}\``;
        };
        addReason(st, { level: 'high', reason: `downloads code and runs it (${q(b.X)} | ${q(b.Y)})` });
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
    const special = specialClause(kind, cmd, src);
    if (special) {
      if (special.reason) addReason(st, special.reason);
      addPart(st, special.text, special.action, []);
      found.push({ action: special.action, download: false, runsStdin: false });
    }
    found.push(...visitList(innerStmts(cmd, st.deadline), src, st, depth));
  }
  if (redirWrites.length || redirReads.length) addPart(st, text, redirWrites.length ? 'write' : 'read', [...redirReads, ...redirWrites]);
  return found;
}

/** Clauses that are more than their inner statements: definitions, declarations, wrappers. */
function specialClause(kind: string, cmd: ShNode, src: string): { action: Action; reason: RiskReason | null; text: string } | null {
  const text = sourceOf(src, cmd);
  const head = text.slice(0, 120);
  switch (kind) {
    case 'FuncDecl': {
      const name = (cmd as unknown as { Name?: { Value?: string } }).Name?.Value ?? '?';
      return { action: 'execute', text: `${name}() { … }`, reason: { level: 'medium', reason: `defines a function ${name.slice(0, 40)}: later commands named ${name.slice(0, 40)} run its body instead` } };
    }
    case 'DeclClause': {
      const variant = (cmd as unknown as { Variant?: { Value?: string } }).Variant?.Value ?? 'declare';
      const args = (cmd as unknown as { Args?: { Naked?: boolean; Name?: { Value?: string } | null; Value?: ShWord | null }[] }).Args ?? [];
      // `declare -p`, `export -p`, `declare -f`, `declare -F`, bare `export`: list only.
      const listing = args.every((a) => a.Naked && !a.Name && /^-[pfF]+$/.test(sourceOf(src, a.Value as ShNode).trim()));
      if (listing && variant !== 'local') return { action: 'read', text: head, reason: null };
      return { action: 'execute', text: head, reason: { level: 'medium', reason: `${variant} sets variables or their attributes, which changes how later commands run` } };
    }
    case 'TimeClause': {
      const inner = (cmd as unknown as { Stmt?: ShStmt | null }).Stmt;
      if (!inner) return null;
      return { action: 'execute', text: head, reason: { level: 'medium', reason: 'time runs a command (and times it)' } };
    }
    case 'CoprocClause':
      return { action: 'execute', text: head, reason: { level: 'medium', reason: 'coproc runs a command in the background, connected to the shell' } };
    default:
      return null;
  }
}


/**
 * The action of a part that runs an argv (xargs CMD, find -exec CMD), the inner argv
 * judged too. The inner program may itself run an argv (`find -exec xargs rm`, `xargs
 * nice rm`): that one counts as well, to the same depth bound as nested shells.
 */
function withInnerArgv(st: State, r: CmdResult, action: Action, resources: string[], level: number): Action {
  if (!r.argv) return action;
  const inner = classifyArgv(r.argv, { cwd: st.cwd, origin: st.origin });
  for (const reason of inner.reasons) addReason(st, reason);
  resources.push(...inner.resources);
  let innerAction = inner.action;
  if (inner.argv) {
    innerAction = level >= MAX_DEPTH ? 'execute' : withInnerArgv(st, inner, inner.action, resources, level + 1);
    if (innerAction === 'read') innerAction = 'execute';
    if (level >= MAX_DEPTH) addReason(st, { level: 'medium', reason: 'runs a command nested too deep to follow' });
  }
  // A shell script inside (`xargs sh -c …`) is not followed here: never a plain read.
  const plainRead = innerAction === 'read' && inner.reasons.length === 0 && !inner.argv && !inner.script && !inner.runsStdin;
  if (r.argvMode === 'wrapper') {
    // xargs appends words from its input: only a program whose every option is
    // harmless stays a read; anything else is execute (never less than the bare command).
    const name = r.argv[0]?.text ?? '';
    if (!(plainRead && isClosedRead(name))) {
      addReason(st, { level: 'medium', reason: plainRead ? `xargs appends words from its input to ${name}, which could make them options that are not read-only` : `xargs runs ${name.slice(0, 60)} with words from its input` });
      // The files it then acts on come from its input, not the command line: a command grant
      // (`{xargs,xargs *}`, offered for `xargs rm`) covered `find / | xargs rm` and
      // `xargs sh -c …`. Placed nowhere, it asks each time.
      r.unlisted ??= `xargs gives ${name.slice(0, 60)} words from its input: the files it acts on are not on the command line`;
      return 'execute';
    }
    return action;
  }
  if (!plainRead) return riskier(action, innerAction === 'read' && (inner.script || inner.argv || inner.runsStdin) ? 'execute' : innerAction);
  return action;
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
  if (r.argv) action = withInnerArgv(st, r, action, resources, 0);

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
      // `sh -c '…'`, `bash <<EOF`: the shell is transparent, its script's parts (already
      // added) are what runs. Keep only what the wrapper itself writes. An opaque one
      // (eval, env -S, watch, zsh -c, bash -O …) stays what it is, on top of its script.
      if (!r.scriptOpaque) {
        if (resources.length) addPart(st, text, redirWrites.length ? 'write' : 'read', resources);
        return { action: redirWrites.length ? 'write' : 'read', download: false, runsStdin: false };
      }
    }
  } else if ((r.runsStdin || r.runs) && downloadedInside) {
    // bash <(curl …), python <(wget -O- …)
    addReason(st, { level: 'high', reason: 'downloads code and runs it (process substitution)' });
  }
  if (r.runs) {
    if (st.madeExecutable.has(r.runs)) addReason(st, { level: 'high', reason: `makes ${r.runs} executable and then runs it` });
    else if (st.written.has(r.runs)) addReason(st, { level: 'high', reason: `writes or downloads ${r.runs} and then runs it` });
  }
  if (r.runsGitHooks && st.hookWritten) {
    addReason(st, { level: 'critical', reason: `writes a git hook (${st.hookWritten}) and runs git in the same command, which executes it` });
    action = 'execute';
  }
  if (action !== 'read' && !st.hookWritten) st.hookWritten = resources.find((p) => GIT_HOOK.test(p)) ?? null;
  for (const p of r.makesExecutable ?? []) st.madeExecutable.add(p);
  for (const p of r.writes ?? []) st.written.add(p);

  // What a git tree change writes is looked up before the line runs (core/git-tree-paths.ts),
  // so an earlier part that may move refs or objects (`git update-ref …`, `git fetch`, a script)
  // makes that look stale: unknown. git add/commit only move the index and HEAD's branch: the
  // work tree is then compared too.
  let gitTree = r.gitTree;
  if (gitTree && st.changedBefore === 'other') {
    r.unlisted ??= `an earlier part of the line may change what \`${clip(oneLine(text), 60)}\` checks out, which Airlock looks at before the line runs`;
    gitTree = undefined;
  } else if (gitTree && st.changedBefore === 'index') gitTree = { ...gitTree, afterCommit: true };
  // A plain file written or deleted changes the work tree only (what it does to `.git` is a
  // protected path of its own); anything else may move refs: a script, a fetch, update-ref.
  const onlyTree = r.runsGitHooks ? !!r.gitIndexOnly : action === 'write' || action === 'delete';
  if (action !== 'read') st.changedBefore = onlyTree && st.changedBefore !== 'other' ? 'index' : 'other';
  if (r.unlisted) addReason(st, { level: 'medium', reason: `${r.unlisted}: no grant covers that, so it asks each time` });
  // git itself stores a link as a link (`git add`, `git diff`): it never reads through one.
  addPart(st, text, action, resources, r.unlisted, !!r.runsGitHooks, r.unlisted ? undefined : gitTree);
  if (r.aliases) st.aliases.push(...r.aliases.slice(0, Math.max(0, 64 - st.aliases.length)));
  if (r.plantsLinks && st.trees.length < 16) st.trees.push(r.plantsLinks);
  return { action, download: !!r.download, runsStdin: !!r.runsStdin && !script };
}

function classifyInto(src: string, st: State, depth: number): void {
  // The parser takes a carriage return for a blank; bash takes it for a letter:
  // `cat\r/tmp/x` is `cat /tmp/x` here but runs the program ./cat\r/tmp/x there. No
  // command an agent means needs one, so any carriage return asks (CRLF included).
  if (src.includes('\r')) {
    addReason(st, { level: 'high', reason: 'carriage return in the command: bash reads it as part of a word, not as a blank, so it may run another program than shown' });
    addPart(st, src, 'execute', []);
  }
  const parsed = parse(src);
  if (!('error' in parsed)) src = parsed.src;
  if ('error' in parsed) {
    addReason(st, { level: 'medium', reason: `could not parse the command (${clip(parsed.error.trim(), 120)}); treated as execute` });
    addPart(st, src, 'execute', []);
    return;
  }
  for (const h of findHazards(parsed.file, src, st.deadline, () => {
    throw new TooComplex();
  })) {
    addReason(st, h.reason);
    addPart(st, sourceOf(src, h.node), 'execute', []);
  }
  visitList(parsed.stmts, src, st, depth);
}

export const classifyShell: CommandClassifier = (command, cwd, opts) => trackUnplaced(() => (opts?.rawPaths ? withRawPaths(() => classify(command, cwd)) : classify(command, cwd))).value;

function classify(command: string, cwd?: string): CommandClassification {
  // Load the parser (first call only) before the clock starts.
  sh();
  shOps();
  const st: State = {
    cwd: cwd && cwd.startsWith('/') ? cwd : undefined,
    origin: cwd && cwd.startsWith('/') ? cwd : undefined,
    parts: [],
    action: null,
    resources: [],
    reasons: [],
    madeExecutable: new Set(),
    written: new Set(),
    hookWritten: null,
    aliases: [],
    trees: [],
    changedBefore: null,
    visits: 0,
    deadline: cpuMs() + BUDGET_MS,
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
}

/** One line for a prompt: "rm -rf build → delete /repo/build; …". */
export function summarizeClassification(c: CommandClassification, max: number = LIMITS.summary): string {
  if (c.parts.length === 0) return `${c.action}: (empty command)`;
  const lines = c.parts.map((p) => `${p.command} → ${p.action}${p.resources.length ? ' ' + p.resources.slice(0, 4).join(', ') : ''}`);
  return clip(lines.join('; '), max);
}
