// `airlock exec`: sudo for agents. Classify the command, ask Airlock, and only when
// allowed run it (optionally inside bubblewrap) with stdio passed through, exiting with
// the command's own code. A denial never runs anything.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AirlockClient, AirlockRpcError, airlockRuntimeDir, defaultRequestSocket, isDaemonUnavailable, type AgentAnswer, type AskParams } from '../../client';
import { classifyShell, MAX_COMMAND_CHARS, summarizeClassification } from '../../core/classify/shell';
import { bwrapArgs, findBwrap, NO_BWRAP, unsafeSandboxCwd } from './sandbox';
import { runCommand, type RunOutcome } from './run';

export interface ExecOptions {
  argv: string[];
  /** argv is shell text (joined with spaces) run by /bin/sh -c. */
  shell: boolean;
  /** The command text comes from stdin (the command-wrapper recipe); implies shell. */
  stdinCommand?: string;
  cwd: string;
  task?: string;
  sandbox: boolean;
  timeoutSec?: number;
  readOnly?: string[];
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
export function shQuote(s: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The command as shell text, which is what gets classified and recorded. */
export function commandText(o: Pick<ExecOptions, 'argv' | 'shell' | 'stdinCommand'>): string {
  if (o.stdinCommand !== undefined) return o.stdinCommand;
  return o.shell ? o.argv.join(' ') : o.argv.map(shQuote).join(' ');
}

export function buildRequest(o: ExecOptions, taskHasNetwork = false): { req: AskParams; network: boolean } {
  const text = commandText(o);
  const c = classifyShell(text, o.cwd);
  // The sandbox opens the network only for a command the human saw as a transfer, or in
  // a task that holds a transfer grant (the daemon says which: task.network).
  const network = taskHasNetwork || c.parts.some((p) => p.action === 'transfer') || c.action === 'transfer';
  const req: AskParams = {
    source: 'exec',
    tool: 'exec',
    action: c.action,
    ...(c.resources.length ? { resource: c.resources[0], resources: c.resources } : {}),
    summary: `${o.sandbox ? '[sandbox' + (network ? ', network' : ', no network') + '] ' : ''}${summarizeClassification(c, 1900)}`,
    // args.command is what the daemon re-classifies: it never trusts our action.
    args: { command: text.slice(0, MAX_COMMAND_CHARS + 1), ...(o.shell || o.stdinCommand !== undefined ? {} : { argv: o.argv.slice(0, 256) }), sandbox: o.sandbox, ...(o.sandbox ? { network } : {}) },
    ...(o.task ? { task: o.task } : {}),
    cwd: o.cwd,
  };
  return { req, network };
}

/** Whether the task holds a transfer grant; false when the daemon cannot say (the ask below reports why). */
async function taskNetwork(task: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  let client: AirlockClient | null = null;
  try {
    client = await AirlockClient.connect(defaultRequestSocket(env));
    return (await client.taskNetwork(task)).allowed;
  } catch {
    return false;
  } finally {
    client?.close();
  }
}

async function ask(req: AskParams, env: NodeJS.ProcessEnv): Promise<AgentAnswer> {
  let client: AirlockClient;
  try {
    client = await AirlockClient.connect(defaultRequestSocket(env));
  } catch (e) {
    throw new ExecStop('unavailable', `${isDaemonUnavailable(e) ? 'the Airlock daemon is not running' : (e as Error).message}; nothing was run`);
  }
  try {
    return await client.ask(req);
  } catch (e) {
    if (e instanceof AirlockRpcError) throw new ExecStop(e.code === -32602 ? 'usage' : 'denied', `${e.message}; nothing was run`);
    throw new ExecStop('unavailable', `lost the Airlock daemon (${(e as Error).message}); nothing was run`);
  } finally {
    client.close();
  }
}

/**
 * The SSH socket the sandbox may see: only ever one of Airlock's per-task sockets
 * (<runtime>/tasks/<task>/agent.sock) — the task's own when --task is given, else
 * SSH_AUTH_SOCK if it is one. Never the main agent socket or a foreign agent.
 */
export function taskSshSocket(env: NodeJS.ProcessEnv, task?: string, exists: (p: string) => boolean = fs.existsSync): string | null {
  const tasks = path.join(airlockRuntimeDir(env), 'tasks') + path.sep;
  const candidates = [
    ...(task && /^[A-Za-z0-9_-]{1,64}$/.test(task) ? [path.join(tasks, task, 'agent.sock')] : []),
    ...(env.SSH_AUTH_SOCK ? [path.resolve(env.SSH_AUTH_SOCK)] : []),
  ];
  return candidates.find((c) => c.startsWith(tasks) && !c.slice(tasks.length).includes('..') && exists(c)) ?? null;
}

export interface Prepared {
  file: string;
  args: string[];
}

/** What to spawn: the command itself, /bin/sh -c, or bwrap around either. */
export function prepare(o: ExecOptions, network: boolean): Prepared {
  const text = commandText(o);
  const inner = o.shell || o.stdinCommand !== undefined ? ['/bin/sh', '-c', text] : o.argv;
  if (!o.sandbox) return { file: inner[0], args: inner.slice(1) };
  const bwrap = findBwrap(o.env);
  if (!bwrap) throw new ExecStop('sandbox', NO_BWRAP);
  const home = o.env.HOME ? path.resolve(o.env.HOME) : os.homedir();
  const unsafe = unsafeSandboxCwd(o.cwd, home);
  if (unsafe) throw new ExecStop('sandbox', `--sandbox: ${unsafe}; nothing was run`);
  const requestSock = defaultRequestSocket(o.env);
  const args = bwrapArgs({
    cwd: o.cwd,
    home,
    network,
    requestSock,
    sshAuthSock: taskSshSocket(o.env, o.task),
    hide: [airlockRuntimeDir(o.env), ...(o.env.AIRLOCK_HOME ? [path.resolve(o.env.AIRLOCK_HOME)] : [])],
    readOnly: o.readOnly ?? [],
  });
  return { file: bwrap, args: [...args, '--', ...inner] };
}

/**
 * Asks, then runs. Throws ExecStop when nothing ran; otherwise resolves with how the
 * command ended. `onAllowed` lets the CLI say nothing on success (stdout is the command's).
 */
export async function execWithApproval(o: ExecOptions): Promise<RunOutcome> {
  if (o.argv.length === 0 && o.stdinCommand === undefined) throw new ExecStop('usage', 'no command given: airlock exec [options] -- CMD [ARGS…]');
  if (!fs.statSync(o.cwd, { throwIfNoEntry: false })?.isDirectory()) throw new ExecStop('usage', `--cwd ${o.cwd} is not a directory; nothing was run`);
  const { req, network } = buildRequest(o, o.sandbox && o.task ? await taskNetwork(o.task, o.env) : false);
  // Fail on a missing bwrap before bothering the human.
  if (o.sandbox && !findBwrap(o.env)) throw new ExecStop('sandbox', NO_BWRAP);
  const answer = await ask(req, o.env);
  if (answer.decision !== 'allow') {
    // The broker's reasons say who decided ("denied once by the human", "denied by grant g_…").
    const why = /^denied|denied by/.test(answer.reason) ? answer.reason : `denied: ${answer.reason}`;
    throw new ExecStop('denied', `${why} (event ${answer.event})`);
  }
  const p = prepare(o, network);
  const env = { ...o.env, ...(o.task ? { AIRLOCK_TASK: o.task } : {}) };
  return runCommand({ file: p.file, args: p.args, cwd: o.cwd, env, timeoutSec: o.timeoutSec, stdin: o.stdinCommand !== undefined ? 'ignore' : 'inherit', ownSession: o.sandbox });
}
