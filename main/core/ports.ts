// What the core needs from the outside world, as interfaces. The SSH agent (main/ssh)
// and the process layer (main/os) implement them; the broker never imports them directly.
import type { z } from 'zod';
import type { AgentAnswer, AgentRequest, McpToolsReport, TaskStartParams, TaskStartResult } from '../contract/agent';
import type { Key } from '../contract/approver';
import type { ProcessInfo, RemoteInfo, SshInfo } from '../contract/common';
import type { ConfigDirValue } from './claude-config';

/** Facts about a request that only the daemon knows (never taken from the agent's JSON). */
export interface RequestContext {
  process?: ProcessInfo;
  ssh?: SshInfo;
  /**
   * Set by Airlock's SSH agent (agent.sock) on every request it asks about, signatures and
   * ssh-add changes alike. A request that says `source: "ssh"` without it came through
   * request.sock: the requester's own word (risk.ts makes it critical).
   */
  viaSshAgent?: true;
  /** Set when the request came through a task's own socket: the request belongs to that task. */
  boundTask?: string;
  /** Peer connection id, so a disconnect can cancel its pending prompts. */
  connection?: string;
  /** Set by the egress proxy (source `egress`): where the connection goes. */
  egress?: EgressFacts;
  /** The request came through a remote's socket (airlock remote, ssh -R from another machine). */
  remote?: RemoteInfo;
  /**
   * CLAUDE_CONFIG_DIR as the requesting process and its ancestors have it (read from /proc),
   * each value with that process's working directory, as read: Claude Code's settings
   * directory when it is not ~/.claude. The core says which directories they name and only
   * ever adds protection (core/claude-config.ts).
   */
  claudeConfigEnv?: readonly ConfigDirValue[];
}

/** The remotes' own request sockets (implemented by main/api): `airlock remote`. */
export interface RemoteSocketService {
  /** Opens the remote's socket (idempotent) and returns its path. */
  open(name: string): Promise<string>;
  close(name: string): Promise<void>;
  socketPathOf(name: string): string;
}

/** The one entry point for every request, whatever socket it came through. */
export interface Asker {
  ask(req: AgentRequest, ctx: RequestContext): Promise<AgentAnswer>;
}

/** An Asker that also hears when a requester's connection closes (its open prompts are then denied). */
export interface RequestDesk extends Asker {
  dropConnection(connection: string): void;
}

/** What the agent side may learn or report about tasks (implemented by core/tasks-and-grants.ts). */
export interface TaskFacts {
  /** The task a caller on a shared socket may act as: it must present the task's token. */
  authorizeTask(p: { task?: string; token?: string }): string;
  /** Why a caller from `from` (a remote; null: this machine) may not end or inspect `task`, or null when it may. */
  controlRefusal(task: string, from: string | null, method: string): string | null;
  /** Whether the task's egress requests are answered by its grants (counted as they are decided, for the task's origin). */
  taskNetwork(task: string): { allowed: boolean; reason: string };
  learnMcpTools(p: McpToolsReport): { learned: number; kept: string[] };
}

/**
 * Who starts or ends a task, for its history row: the side (an agent, the human, the daemon
 * itself), the row's source (`api`, `claude-code`, or the human side's transport), the socket
 * it came through in words, and the process the socket's peer credentials name.
 */
export interface TaskActor {
  side: 'agent' | 'human' | 'system';
  source: string;
  via: string;
  process?: ProcessInfo;
  remote?: RemoteInfo;
}

/**
 * Why a task ended. `ended`: someone asked (task.end, tasks.end); the others are the daemon's
 * own: the Claude Code hook let a session go (its process exited, it had no owner, or it made
 * way for a newer session of the same process), a session whose file could not be written
 * (ended at once), a remote removed with its tasks.
 */
export type TaskEndWhy = 'ended' | 'owner-exited' | 'unowned' | 'made-way' | 'not-kept' | 'remote-removed';
export interface TaskEnding {
  why: TaskEndWhy;
  by: TaskActor;
  /** Set for remote-removed: the remote's name. */
  remote?: string;
}

/** Starting and ending tasks (implemented by core/task-lifecycle.ts). */
export interface TaskStarter {
  /** `by`: who starts it, for its history row (default: an agent through request.sock, as `ctx` says). */
  startTask(p: TaskStartParams, ctx: RequestContext, by?: TaskActor): Promise<z.input<typeof TaskStartResult>>;
  /** Ends it and records who and why; false when it had already ended (nothing recorded). */
  endTask(task: string, ending: TaskEnding): Promise<boolean>;
}

/** An attempt that never reached policy (malformed line, bad params, a foreign peer). */
export interface RejectedAttempt {
  source: string;
  tool: string;
  summary: string;
  raw: unknown;
  reason: string;
  process?: ProcessInfo;
  task?: string | null;
  /** The daemon's id of the connection it came on, if any: a flood is coalesced per connection. */
  connection?: string;
  /** It came through a remote's socket (airlock remote): recorded with the remote, as its requests are. */
  remote?: RemoteInfo;
}

/** Every socket records what it rejects (implemented by core/history-recorder.ts). */
export interface RejectionRecorder {
  recordRejected(p: RejectedAttempt): number;
}

/** Everything an agent-side socket serves (request.sock, a remote's socket). */
export interface AgentSide {
  desk: RequestDesk;
  tasks: TaskFacts;
  lifecycle: TaskStarter;
  recorder: RejectionRecorder;
}

/** Key management behind ApproverService `keys.*` (implemented by main/ssh). */
export interface KeyService {
  list(): Promise<Key[]>;
  import(p: { path?: string; pem?: string; passphrase?: string; name?: string }): Promise<Key>;
  generate(p: { type: string; name: string }): Promise<Key>;
  remove(fingerprint: string): Promise<void>;
}

/**
 * A task's own sockets (its SSH agent socket in main/ssh, its request.sock in main/api).
 * `owner.end` ends the task: a task's request.sock serves the task's own `task.end`, so
 * the lifecycle that opens the socket hands it the way to end the task.
 */
export interface TaskSocketService {
  /** Opens the task's own socket and returns its path. */
  open(task: string, owner?: { end(process?: ProcessInfo): Promise<void> }): Promise<string>;
  close(task: string): Promise<void>;
}

/** Re-classification of shell commands by the daemon (implemented in main/core/classify). */
export interface CommandClassification {
  /** The riskiest part's action. */
  action: import('../contract/common').Action;
  /** Every resource of every part (paths absolute when cwd was given, hosts, URLs). */
  resources: string[];
  /** One line per part, e.g. "rm -rf build → delete build". */
  /**
   * `unlisted`: the part also writes files its command line does not name (an archive's or a
   * diff's contents name them: `tar -xf a.tar`, `patch < p.diff`), so no allow grant covers it.
   */
  parts: { command: string; action: import('../contract/common').Action; resources: string[]; unlisted?: string; gitTree?: GitTreeSpec }[];
  /** Reasons that raise risk, e.g. "downloads and runs code (curl | sh)". */
  riskReasons: { level: import('../contract/common').RiskLevel; reason: string }[];
}
/**
 * `rawPaths`: paths as written joined to the cwd, `..` kept, so the daemon can resolve them
 * physically (`h/../config` after a link `h → .git/hooks` is `.git/config`, not `config`).
 */
export type CommandClassifier = (command: string, cwd?: string, opts?: { rawPaths?: boolean }) => CommandClassification;

/** Push side of ApproverService: what `subscribe` delivers (ui.sock, web socket, IPC). */
export interface NotificationSource {
  subscribe(listener: (n: import('../contract/approver').ApproverNotification) => void): () => void;
}

/** Lets the SSH agent list only the keys a task's grants name (null: no limit). */
export interface KeyScope {
  keysVisibleTo(task: string): Set<string> | null;
}

/** Facts about an egress connection that only the proxy knows (shown in its prompt). */
export interface EgressFacts {
  host: string;
  port: number;
  /** The address it will connect to, when known before the decision (see integrations/egress/resolve.ts). */
  address: string | null;
  /** `CONNECT` for a tunnel, else the HTTP method of a plain request. */
  method: string;
  /** What the task sent and received through its proxy so far, and to how many destinations. */
  sentBytes: number;
  receivedBytes: number;
  destinations: number;
  /** Set when the address reaches this machine or the local network ("this machine (loopback)"). */
  local?: string;
  /** Set when it is one of Airlock's own listeners on this machine ("Airlock's own web UI, port 8123"). */
  airlock?: string;
  /** Secrets (by name) that would be injected on this connection. */
  secrets?: string[];
}

/** What went through one allowed egress connection, recorded after it ended. */
/**
 * The SSH agent can no longer sign with some keys: all of them (`locked`: ssh-add -x), or
 * those no longer `held` (a stored key removed, an ssh-add key removed or past its lifetime;
 * keys of an upstream agent are not its to know). Open signature prompts for them are
 * answered at once (Broker.signingEnded).
 */
export type SigningEnded = { locked: true } | { locked: false; held: (fingerprint: string) => boolean };

/**
 * An `ssh-add KEY` that changed the SSH agent (main/ssh/agent-server.ts). It is not asked
 * (agent-admin.ts says why), but agent.sock is every agent's SSH_AUTH_SOCK: which process put
 * which key into the human's agent belongs in history (HistoryRecorder.recordKeyAdded) like
 * everything else an agent does. Facts only: the public fingerprint, never key material.
 */
export interface KeyAdded {
  fingerprint: string;
  algorithm: string;
  comment: string;
  lifetimeSec: number | null;
  confirm: boolean;
  process?: ProcessInfo;
}

export interface EgressRecord {
  task: string;
  /** `tunnel`: bytes of a CONNECT passed untouched; `request`: one HTTP request the proxy saw. */
  kind: 'tunnel' | 'request';
  method: string;
  host: string;
  port: number;
  address: string;
  /** Path and query of a request the proxy saw (null for an untouched tunnel). */
  path: string | null;
  status: number | null;
  bytesOut: number;
  bytesIn: number;
  /** Names of the secrets injected into this request (never values). */
  injected: string[];
  /** The allow event of the connection this belongs to. */
  connectEvent: number;
  error?: string;
  process?: ProcessInfo;
}

/** What the egress proxy needs from the core: ask like any request, and record. */
export interface EgressCore extends RequestDesk, RejectionRecorder {
  recordEgress(r: EgressRecord): void;
  /** A placeholder went where its secret does not belong: recorded, and the task's risk becomes critical. */
  recordPlaceholderLeak(p: { task: string; secret: string; host: string; port: number; where: string; process?: ProcessInfo }): void;
}

/** What a task's sandbox needs to reach its egress proxy (all paths under tasks/<id>/). */
export interface EgressEndpoint {
  sock: string;
  /** Read-only files the sandbox binds at the same path: the CA bundle (only with secrets), the Node preload. */
  caBundle: string | null;
  nodePreload: string;
  /** Environment variable → per-task placeholder, one per secret the task uses. */
  placeholders: Record<string, string>;
}

/** Per-task egress proxies (implemented by main/api over main/integrations/egress). */
export interface EgressService {
  open(task: string, secrets: string[]): Promise<EgressEndpoint>;
  close(task: string): Promise<void>;
  /** Secret names that exist (task.start refuses unknown names). */
  secretNames(): string[];
}

/** Secrets behind ApproverService `secrets.*`: values go in, never come out (implemented by main/integrations/egress). */
export interface SecretService {
  list(): import('../contract/approver').Secret[];
  add(p: import('../contract/approver').SecretAdd): import('../contract/approver').Secret;
  remove(name: string): void;
}

/**
 * Where the CLAUDE_CONFIG_DIR directories the daemon has seen are kept across restarts
 * (implemented over main/store; core/claude-dir-memory.ts). Only ever grows.
 */
export interface ClaudeDirKeeper {
  /** The kept directories, oldest first (at most `max`). */
  load(max: number): string[];
  /** Keeps one more unless `max` are kept; true when it is kept. May throw (the database busy): it is tried again later. */
  keep(dir: string, max: number): boolean;
}

/**
 * Where paths really lead, symbolic links resolved (implemented by main/os/real-path.ts).
 * `real` lists only the paths whose target differs from the path as written; `incomplete`
 * says why some were not resolved (a budget ran out, a link loop). `hardLinks` names, for a
 * path that is a regular file with more than one name, a protected file it is the same file as
 * (`claudeDirs`: CLAUDE_CONFIG_DIR directories whose settings count as protected too).
 * `globs` (paths a shell command writes, deletes or sends that hold `*`, `?` or `[…]`) are
 * expanded as bash will: each becomes the paths that match now, with their real targets.
 */
export type PathResolver = (
  paths: readonly string[],
  opts?: { claudeDirs?: readonly string[]; globs?: readonly string[] },
) => { real: Map<string, string>; incomplete: string | null; hardLinks?: Map<string, string>; globs?: Map<string, string[]> };

/**
 * The directory git would take as a bare repository from a working directory (HEAD,
 * objects/, refs/ and no `.git` on the way up), or null (implemented by
 * main/os/git-lookalike.ts). Its `config` is a plain file an agent may have written, so a
 * git "read" there can run a program the agent named.
 */
export type RepoLookalikeProbe = (cwd: string) => string | null;

/**
 * What a git command that rewrites the work tree would write, as a question for the daemon
 * (core/classify/sh-git-tree.ts poses it, main/os/git-tree.ts answers it with git's plumbing,
 * core/git-tree-paths.ts lists the answer as the part's resources). Revisions are plain words
 * (sh-git-tree.ts PLAIN_REV); paths are absolute.
 * - `switch`: checkout/switch/reset --keep to `rev`: what differs between HEAD or the index and
 *   rev (and, `force`, what the work tree changed: it is overwritten);
 * - `tree`: the work tree made like `rev`'s tree (the index's when null) where `within` says
 *   (everywhere when null): reset --hard, checkout REV -- paths, restore, stash push;
 * - `checkout`: `git checkout WORD …` without `--`, where git decides whether WORD is a
 *   revision (then `rest` are paths from it) or a path (then WORD is one more path);
 * - `merge`, `pick` (cherry-pick and revert: each commit against its parents), `rebase`
 *   (the checkout of onto/upstream, then each replayed commit), `stash` (apply/pop),
 *   `worktree` (worktree add: every file of `rev`, or of the branch `guess` names when it names
 *   one and HEAD otherwise, written under `dir`).
 * `afterCommit`: an earlier part of the same line ran git add or commit, which move the index
 * and HEAD before this runs: the work tree's changes are listed too.
 */
export interface GitTreeSpec {
  cwd: string;
  op:
    | { kind: 'switch'; rev: string; force: boolean }
    | { kind: 'tree'; rev: string | null; within: string[] | null }
    | { kind: 'checkout'; word: string | null; path: string[] | null; rest: string[] | null; force: boolean }
    | { kind: 'merge'; revs: string[] }
    | { kind: 'pick'; revs: string[] }
    | { kind: 'rebase'; upstream: string; onto: string | null; branch: string | null }
    | { kind: 'stash'; rev: string }
    | { kind: 'worktree'; dir: string; rev: string | null; guess: string | null };
  afterCommit?: boolean;
}

/**
 * The answer: the files the change writes or removes (absolute), the symbolic links it makes
 * (and where they point), the directory core.hooksPath names (absolute) or null; or why it
 * could not be worked out (then nothing covers the part). Implemented by main/os/git-tree.ts.
 */
export type GitTreeAnswer = { paths: string[]; links: { path: string; target: string }[]; hooksDir: string | null } | { unknown: string };
export type GitTreeProbe = (spec: GitTreeSpec) => GitTreeAnswer;

/**
 * Read-only looks at the disk for "what will happen" (core/consequence.ts): the size of
 * what a delete removes, the file an Edit changes, a repository's remote URL. Every call
 * is bounded (entries, bytes, time) and never follows the agent into /proc, /sys or /dev;
 * implemented in main/os/consequence-probe.ts.
 */
export interface ConsequenceProbe {
  /** A path's size without following symbolic links: files and bytes below it, `capped` when the walk stopped early. */
  measure(path: string): { kind: 'file' | 'dir' | 'link' | 'other' | 'missing'; files: number; bytes: number; capped: boolean };
  /** A regular file's text (UTF-8), or why not: missing, not a regular file, too big. */
  readText(path: string): { text: string } | { missing: true } | { refused: string };
  /** The URL `git push <remote>` uses from the repository around `cwd` (pushurl, else url, insteadOf applied), or null. */
  gitRemoteUrl(cwd: string, remote: string): string | null;
}
