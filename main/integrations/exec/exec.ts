// `airlock exec`: sudo for agents. Classify the command, ask Airlock, and only when
// allowed run it (optionally inside bubblewrap) with stdio passed through, exiting with
// the command's own code. A denial never runs anything.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AirlockClient, AirlockRpcError, airlockRuntimeDir, defaultRequestSocket, isTaskToken, taskIdOf, type AgentAnswer, type AskParams } from '../../client';
import { airlockPaths } from '../../os/paths';
import { shellWord } from '../../../shared/shell-word';
import { classifyShell, MAX_COMMAND_CHARS, summarizeClassification } from '../../core/classify/shell';
import { relayArgv } from '../egress/relay';
import { bwrapArgs, findBwrap, NO_BWRAP, unsafeSandboxCwd, unsafeSandboxReadOnly, type SandboxEgress } from './sandbox';
import { withheldEnv, withheldNote } from './sandbox-env';
import { sandboxSocketPlan } from './sandbox-sockets';
import { runCommand, type RunOutcome } from './run';

export interface ExecOptions {
  argv: string[];
  /** argv is shell text (joined with spaces) run by /bin/sh -c. */
  shell: boolean;
  /** The command text comes from stdin (the command-wrapper recipe); implies shell. */
  stdinCommand?: string;
  cwd: string;
  /** The task: its id (the token comes from AIRLOCK_TASK_TOKEN, or the socket is the task's own) or its token. */
  task?: string;
  sandbox: boolean;
  timeoutSec?: number;
  readOnly?: string[];
  /** With sandbox: variables kept although their names look like credentials (`--keep-env`). */
  keepEnv?: string[];
  env: NodeJS.ProcessEnv;
}

/** Why exec stopped before running anything; the CLI maps `kind` to an exit code. */
export class ExecStop extends Error {
  constructor(
    readonly kind: 'denied' | 'unavailable' | 'usage' | 'sandbox',
    message: string,
  ) {
    super(message);
  }
}

/** POSIX single-quoting, so the classifier (and the human) see argv exactly. */
export const shQuote = shellWord;

/** The command as shell text, which is what gets classified and recorded. */
export function commandText(o: Pick<ExecOptions, 'argv' | 'shell' | 'stdinCommand'>): string {
  if (o.stdinCommand !== undefined) return o.stdinCommand;
  return o.shell ? o.argv.join(' ') : o.argv.map(shQuote).join(' ');
}

/**
 * `egress`: whether the sandbox has its task's egress proxy as its way out (every
 * destination asked on its own); the sandbox never has the network itself.
 */
export function buildRequest(o: ExecOptions, egress = false): { req: AskParams; network: boolean } {
  const text = commandText(o);
  const c = classifyShell(text, o.cwd);
  const network = egress;
  const req: AskParams = {
    source: 'exec',
    tool: 'exec',
    action: c.action,
    ...(c.resources.length ? { resource: c.resources[0], resources: c.resources } : {}),
    summary: `${o.sandbox ? '[sandbox' + (network ? ', network through the egress proxy' : ', no network') + '] ' : ''}${summarizeClassification(c, 1900)}`,
    // args.command is what the daemon re-classifies: it never trusts our action.
    args: { command: text.slice(0, MAX_COMMAND_CHARS + 1), ...(o.shell || o.stdinCommand !== undefined ? {} : { argv: o.argv.slice(0, 256) }), sandbox: o.sandbox, ...(o.sandbox ? { network } : {}) },
    ...(o.task ? { task: o.task } : {}),
    cwd: o.cwd,
  };
  return { req, network };
}

/**
 * The egress proxy of a task (written by the daemon beside the task's sockets as
 * egress.json), or null when the task has none: then the sandbox has no way out at all.
 */
export function taskEgress(env: NodeJS.ProcessEnv, task?: string): SandboxEgress | null {
  if (!task || !/^[A-Za-z0-9_-]{1,64}$/.test(task)) return null;
  const file = path.join(airlockRuntimeDir(env), 'tasks', task, 'egress.json');
  try {
    const j = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<SandboxEgress>;
    if (typeof j.sock !== 'string' || !fs.existsSync(j.sock)) return null;
    const placeholders: Record<string, string> = {};
    for (const [k, v] of Object.entries(j.placeholders ?? {})) if (/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(k) && typeof v === 'string') placeholders[k] = v;
    return {
      sock: j.sock,
      caBundle: typeof j.caBundle === 'string' ? j.caBundle : null,
      nodePreload: typeof j.nodePreload === 'string' ? j.nodePreload : null,
      placeholders,
    };
  } catch {
    return null;
  }
}

/** Where Node lives, bound read-only when it is not under a system directory (the relay runs on it). */
function nodeBinary(): string {
  return process.execPath;
}

async function ask(req: AskParams, env: NodeJS.ProcessEnv): Promise<AgentAnswer> {
  let client: AirlockClient;
  try {
    client = await AirlockClient.connect(defaultRequestSocket(env));
  } catch (e) {
    // The client's message names the socket and says to start `airlock serve`.
    throw new ExecStop('unavailable', `${(e as Error).message}; nothing was run`);
  }
  try {
    return await client.ask(req);
  } catch (e) {
    // -32602: a bad --task or option; -32600: a command too large to ask about as one line.
    if (e instanceof AirlockRpcError) throw new ExecStop(e.code === -32602 || e.code === -32600 ? 'usage' : 'denied', `${e.message}; nothing was run`);
    throw new ExecStop('unavailable', `lost the Airlock daemon (${(e as Error).message}); nothing was run`);
  } finally {
    client.close();
  }
}

/**
 * The socket directory of a task (tasks/<id>/: its request.sock, agent.sock and egress
 * files), the only part of Airlock a sandbox sees. Called only with the task the daemon
 * said the approved request counted as (AgentAnswer.task), never with a task id taken on
 * trust. Inside a sandbox the runtime directory is hidden, but AIRLOCK_REQUEST_SOCK names
 * the task's socket at its real path, so nested sandboxes find the same directory.
 */
export function taskSocketDir(env: NodeJS.ProcessEnv, task: string): string | null {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(task)) return null;
  const own = env.AIRLOCK_REQUEST_SOCK ? path.resolve(env.AIRLOCK_REQUEST_SOCK) : null;
  if (own && path.basename(own) === 'request.sock' && path.basename(path.dirname(own)) === task && path.basename(path.dirname(path.dirname(own))) === 'tasks') {
    return path.dirname(own);
  }
  return path.join(airlockRuntimeDir(env), 'tasks', task);
}

export interface Prepared {
  file: string;
  args: string[];
  /** The caller's variables the sandbox does not get (say so once: sandbox-env.ts). */
  withheld: string[];
}

/**
 * What to spawn: the command itself, /bin/sh -c, or bwrap around either. With `egress`
 * the command runs behind the relay (main/integrations/egress/relay.ts), whose proxy
 * variables point at the task's egress proxy; without it the sandbox has no way out.
 */
export function prepare(o: ExecOptions, egress: SandboxEgress | null, task: string | null = null): Prepared {
  const text = commandText(o);
  const command = o.shell || o.stdinCommand !== undefined ? ['/bin/sh', '-c', text] : o.argv;
  const node = nodeBinary();
  const inner = o.sandbox && egress ? relayArgv(node, egress.sock, egress.nodePreload, command) : command;
  if (!o.sandbox) return { file: inner[0], args: inner.slice(1), withheld: [] };
  const bwrap = findBwrap(o.env);
  if (!bwrap) throw new ExecStop('sandbox', NO_BWRAP);
  const home = sandboxHome(o.env);
  // Looked at again right before the run: other programs' sockets come and go.
  const others = refuseUnsafeSandbox(o.cwd, o.readOnly ?? [], o.env);
  // `task`: the task whose sockets the sandbox gets — the one the daemon counted the approval against.
  const dir = task ? taskSocketDir(o.env, task) : null;
  // A secret's name is not withheld: its placeholder is set in its place.
  const withheld = withheldEnv(o.env, [...(o.keepEnv ?? []), ...Object.keys(egress?.placeholders ?? {})]);
  const args = bwrapArgs({
    // Real paths: bwrap binds what a link leads to, so the hiding below must compare those.
    cwd: realPath(o.cwd),
    home,
    egress: o.sandbox ? egress : null,
    task: task && dir ? { id: task, dir } : null,
    hide: [...airlockDirs(o.env), ...others],
    readOnly: [...(o.readOnly ?? []).map(realPath), ...(egress && !/^\/(usr|bin|sbin|lib|lib64|opt|nix)\//.test(node) ? [node] : [])],
    withhold: withheld,
  });
  return { file: bwrap, args: [...args, '--', ...inner], withheld };
}

function sandboxHome(env: NodeJS.ProcessEnv): string {
  return env.HOME ? path.resolve(env.HOME) : os.homedir();
}

/** The path with every symbolic link resolved (as bwrap will bind it); a missing path as given, made absolute. */
export function realPath(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * Airlock's own directories, as real paths: the socket directory (ui.sock, request.sock,
 * every task's sockets), AIRLOCK_HOME, and the data directory (database, keys, secrets),
 * which without AIRLOCK_HOME is apart from the sockets (~/.local/share/airlock).
 */
export function airlockDirs(env: NodeJS.ProcessEnv): string[] {
  const p = airlockPaths(env);
  const dirs = [airlockRuntimeDir(env), p.home, ...(env.AIRLOCK_HOME ? [env.AIRLOCK_HOME] : [])].map(realPath);
  return [...new Set(dirs)];
}

/**
 * A working directory holding the home directory (or `/`), or one inside Airlock's own
 * directories, cannot be sandboxed, nor can a `--ro` path inside them be shared. That is the
 * user's choice of where to run, so a usage error (64) that says where to run instead; 69 is
 * kept for "the daemon is not running" (and a missing bwrap). Links are resolved first: a
 * `--cwd` naming a link to the home is the home. Returns what to hide of other programs'
 * sockets (main/integrations/exec/sandbox-sockets.ts), which can refuse the sandbox too.
 */
export function refuseUnsafeSandbox(cwd: string, readOnly: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const own = airlockDirs(env);
  const unsafe = unsafeSandboxCwd(realPath(cwd), realPath(sandboxHome(env)), own) ?? readOnly.map((r) => unsafeSandboxReadOnly(realPath(r), own, realPath(sandboxHome(env)))).find((x) => x !== null) ?? null;
  if (unsafe) throw new ExecStop('usage', `--sandbox: ${unsafe}; nothing was run`);
  // Other programs' sockets (tmux, X11, D-Bus, ssh-agent): refused or hidden (sandbox-sockets.ts).
  const plan = sandboxSocketPlan(realPath(cwd), readOnly.map(realPath), env, process.getuid?.() ?? 0);
  if (plan.refuse) throw new ExecStop('usage', `--sandbox: ${plan.refuse}; nothing was run`);
  return plan.hide;
}

/**
 * Asks, then runs. Throws ExecStop when nothing ran; otherwise resolves with how the
 * command ended. `onAllowed` lets the CLI say nothing on success (stdout is the command's).
 */
export async function execWithApproval(o: ExecOptions): Promise<RunOutcome> {
  if (o.argv.length === 0 && o.stdinCommand === undefined) throw new ExecStop('usage', 'no command given: airlock exec [options] -- CMD [ARGS…]');
  // An empty command name would be a prompt about nothing, then a failed start with 126,
  // which reads as a denial: refused before anyone is asked. (Empty shell text stays what
  // `sh -c ''` is, exit 0: the command-wrapper recipe promises the same result as running
  // the text directly.)
  if (o.stdinCommand === undefined && !o.shell && !o.argv[0]) throw new ExecStop('usage', 'no command given (the command name is empty): airlock exec [options] -- CMD [ARGS…]');
  if (!fs.statSync(o.cwd, { throwIfNoEntry: false })?.isDirectory()) throw new ExecStop('usage', `--cwd ${o.cwd} is not a directory; nothing was run`);
  const taskId = o.task ? taskIdOf(o.task) : undefined;
  const egress = o.sandbox ? taskEgress(o.env, taskId) : null;
  const { req } = buildRequest(o, egress !== null);
  // Fail on a missing bwrap or a working directory that cannot be sandboxed before bothering
  // the human: asking about a command that will not run anyway wastes an answer (and an allow).
  if (o.sandbox && !findBwrap(o.env)) throw new ExecStop('sandbox', NO_BWRAP);
  if (o.sandbox) refuseUnsafeSandbox(o.cwd, o.readOnly ?? [], o.env);
  const answer = await ask(req, o.env);
  if (answer.decision !== 'allow') {
    // The broker's reasons say who decided ("denied once by the human", "denied by grant g_…").
    const why = /^denied|denied by/.test(answer.reason) ? answer.reason : `denied: ${answer.reason}`;
    throw new ExecStop('denied', `${why}${answer.event > 0 ? ` (event ${answer.event})` : ''}`);
  }
  // The sandbox gets the sockets (and egress) of the task the daemon answered for, only.
  const task = answer.task ?? null;
  const p = prepare(o, task === null ? null : task === taskId ? egress : o.sandbox ? taskEgress(o.env, task) : null, task);
  if (p.withheld.length) process.stderr.write(`${withheldNote(p.withheld)}\n`);
  const env = { ...o.env };
  if (o.task) {
    env.AIRLOCK_TASK = taskIdOf(o.task);
    if (isTaskToken(o.task)) env.AIRLOCK_TASK_TOKEN = o.task;
  }
  return runCommand({ file: p.file, args: p.args, cwd: o.cwd, env, timeoutSec: o.timeoutSec, stdin: o.stdinCommand !== undefined ? 'ignore' : 'inherit', ownSession: o.sandbox });
}
