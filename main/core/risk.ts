// Risk of one request, including chains across its task (DESIGN.md "Risk and chains").
import * as os from 'node:os';
import { RISK_LEVELS, type Risk, type RiskLevel } from '../contract/common';
import type { CoreRequest } from './request';
import { commandRules, RULE, ruleText } from './risk-rules';
import { isWithin } from './classify/path-within';
import { claudeAliases, DEFAULT_CLAUDE_DIR, GLOBAL_CLAUDE_FILE, tidy } from './claude-config';
import { anyPattern } from './any-pattern';

const HOME = os.homedir();

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function norm(p: string): string {
  return p.startsWith('~/') ? HOME + p.slice(1) : p;
}

/**
 * Places where a write can switch the approver off: Claude Code's settings hold the hook
 * that asks Airlock (and `disableAllHooks`), Airlock's own data directory holds its
 * settings, grants, history and keys. A write or delete there is critical: a grant never
 * answers for it, the human is asked every time (red team wave 5: a workspace write grant
 * let an agent Edit `.claude/settings.local.json` silently). Matched anywhere in a path
 * (a project's `.claude/` as well as `~/.claude/`); Airlock's directory by its default
 * names (XDG data dir, macOS Application Support).
 */
const DISABLES_APPROVER: { test: RegExp; what: string }[] = [
  // The directories holding them too: `rm -rf ~/.claude` or `mv .claude x` removes the hook.
  // Without regard to case (macOS's default file system ignores it: `.Claude/Settings.json` is the file).
  { test: /(^|\/)\.claude(\/settings(\.local)?\.json)?\/?$|^\/etc\/claude-code(\/managed-settings\.json)?\/?$|^\/Library\/Application Support\/ClaudeCode(\/managed-settings\.json)?\/?$/i, what: "Claude Code's settings (its hooks, including Airlock's)" },
  // Claude Code's global config (`~/.claude.json`, or `<CLAUDE_CONFIG_DIR>/.claude.json` through
  // claude-config.ts): it names the MCP servers Claude Code starts, outside any hook, and which
  // projects' settings (hooks included) are trusted without a dialog.
  { test: new RegExp(`^${escapeRe(GLOBAL_CLAUDE_FILE)}$|^${escapeRe(DEFAULT_CLAUDE_DIR)}/\\.config\\.json$`, 'i'), what: "Claude Code's global config (~/.claude.json: MCP servers it starts, trusted projects)" },
  { test: /(^|\/)(\.local\/share\/airlock|Library\/Application Support\/Airlock)(\/|$)/, what: "Airlock's own data (settings, grants, history, keys)" },
];

/** The daemon's Claude Code session files (<sockets>/claude-code/<session>.task, hook-service.ts). */
const SESSION_TOKEN = /(^|\/)claude-code\/[^/]+\.task$/;

/** Places where a write can run code later. */
const RUNS_CODE_LATER: { test: RegExp; what: string }[] = [
  ...DISABLES_APPROVER,
  // Claude Code runs what these name: MCP servers (.mcp.json, ~/.claude.json), slash
  // commands with `!` lines, agents, skills with scripts, hook scripts.
  // shell-snapshots: Claude Code sources the newest snapshot before every Bash command.
  { test: /(^|\/)(\.mcp\.json|\.claude\.json)$|(^|\/)\.claude\/(commands|agents|skills|hooks|plugins|shell-snapshots)(\/|$)/i, what: 'Claude Code configuration that names programs it runs (MCP servers, commands, skills, hooks)' },
  { test: /(^|\/)\.git\/hooks(\/|$)/, what: 'a git hook (runs on the next git command)' },
  { test: /(^|\/)\.git\/config$/, what: 'git config (can set hooks, aliases, fsmonitor)' },
  // Everything else git reads from its directory can lead to code too (red team wave 5):
  // `.git/commondir` holding `../evil` makes git take evil/config (a plain workspace file)
  // as the repository's config, so the next `git status` ran its core.fsmonitor; a
  // submodule's `.git/modules/x/config` and `hooks/`, a worktree's `config.worktree`, the
  // index (gitlinks make git recurse into a directory) and a `.git` file (`gitdir: …`
  // names another repository) likewise. Only `.git/info/exclude` is plain data.
  { test: /(^|\/)\.git(\/(?!info\/exclude$)|$)/, what: "the repository's own files (.git: where git finds its config and hooks)" },
  { test: /(^|\/)\.(bashrc|bash_profile|bash_login|profile|zshrc|zprofile|zshenv|zlogin|kshrc|cshrc|tcshrc)$/, what: 'a shell start-up file' },
  { test: /(^|\/)\.config\/fish\/config\.fish$/, what: 'a shell start-up file' },
  // Also run by a shell, a session or a tool at start or exit: logout files, fish's conf.d,
  // X session files, systemd's user environment (LD_PRELOAD for every service), PAM's
  // environment, tmux/screen config (run-shell), lesskey (#env LESSOPEN pipes every file less
  // opens through a program), editors' init files, gdb's, mvn's shell wrapper's, gradle's init scripts.
  // From GTFOBins: ~/.lessfilter (lesspipe runs it for every file less opens), top's toprc
  // (pipe/inspect commands), rtorrent's execute=, wget's use_askpass, aria2c's on-download-*.
  { test: /(^|\/)\.(bash_logout|zlogout|login|logout|xprofile|xinitrc|xsession|xsessionrc|pam_environment|tmux\.conf|screenrc|lesskey|gdbinit|mavenrc|emacs|exrc|lessfilter|toprc|rtorrent\.rc|wgetrc)$/, what: 'a file a shell, session or tool runs at start or exit' },
  { test: /(^|\/)\.config\/(fish\/conf\.d|environment\.d|nvim|tmux)\/|(^|\/)\.config\/lesskey$|(^|\/)\.emacs\.d\/(init|early-init)\.el$|(^|\/)\.gradle\/init\.d\/|(^|\/)\.config\/procps\/toprc$|(^|\/)(\.aria2|\.config\/aria2)\/aria2\.conf$/, what: 'a file a shell, session or tool runs at start or exit' },
  { test: /(^|\/)\.ssh(\/|$)/, what: '~/.ssh (keys, config, authorized_keys)' },
  { test: /(^|\/)\.github\/workflows\//, what: 'a CI workflow' },
  { test: /(^|\/)(\.gitlab-ci\.yml|\.circleci\/|Jenkinsfile$|\.buildkite\/|azure-pipelines\.yml$)/, what: 'a CI pipeline' },
  { test: /(^|\/)package\.json$/, what: 'package.json (npm scripts run on install/test)' },
  { test: /(^|\/)(\.config\/autostart\/|Library\/LaunchAgents\/|\.config\/systemd\/user\/|etc\/systemd\/|etc\/init\.d\/|etc\/rc\.local$)/, what: 'an autostart entry' },
  { test: /(^|\/)(var\/spool\/cron|etc\/cron|crontab$)/, what: 'a crontab' },
  // A process's magic links: /proc/<pid>/root, cwd, fd/N lead wherever that process sees
  // (the daemon cannot resolve them for the agent, main/os/real-path.ts).
  { test: /^\/proc\/[^/]+\/(root|cwd|fd|map_files|exe)(\/|$)/, what: 'a /proc magic link (leads where Airlock cannot see)' },
  // GNU make reads GNUmakefile, then makefile, before Makefile: writing either beside a protected
  // Makefile changed what a grant for `make build` ran (blackbox16).
  { test: /(^|\/)(\.npmrc|\.pypirc|pip\.conf|\.gitconfig|\.vimrc|\.envrc|Makefile|GNUmakefile|makefile)$/, what: 'a file other tools execute or trust' },
  // Yarn runs the file its config names (`yarnPath`, classic `yarn-path`) and loads its
  // plugins on every command, `yarn why` and `yarn --version` included (so none of yarn is a read); pnpm runs
  // .pnpmfile.cjs. Red team wave 5. XDG git config is the same as ~/.gitconfig.
  { test: /(^|\/)(\.yarnrc|\.yarnrc\.yml|\.pnpmfile\.cjs)$|(^|\/)\.yarn\/(releases|plugins)\//, what: 'package manager configuration or code it runs on every command (yarnPath, plugins, pnpmfile)' },
  { test: /(^|\/)\.config\/git\/(config|attributes)$|^\/etc\/gitconfig$|(^|\/)\.git\/config\.worktree$/, what: 'git config (can set hooks, aliases, fsmonitor)' },
  // Version managers run the toolchain these name: rustup follows rust-toolchain.toml's `path`
  // to any directory on every cargo/rustc call; cargo's config sets runners and rustc wrappers;
  // asdf's `path:` versions and mise's tools/hooks likewise.
  { test: /(^|\/)(rust-toolchain(\.toml)?|\.tool-versions|\.?mise\.toml)$|(^|\/)\.cargo\/config(\.toml)?$/, what: 'a toolchain file (cargo, rustc, asdf or mise run the programs it names)' },
];

/** Places that hold secrets. */
// A directory of secrets is itself a secret: `grep -r . ~/.ssh` or a Grep tool call with
// path ~/.ssh reads every key in it, and must be remembered like a read of one key.
const SECRETS: { test: RegExp; what: string }[] = [
  { test: /(^|\/)\.ssh(\/|$)/, what: '~/.ssh' },
  { test: /(^|\/)\.env(\.[^/]*)?$/, what: 'a .env file' },
  { test: /(^|\/)\.aws(\/|$)/, what: '~/.aws' },
  { test: /(^|\/)\.(gnupg|password-store|docker\/config\.json|kube\/config|netrc|pgpass|git-credentials)/, what: 'a credential store' },
  { test: /(^|\/)\.config\/(gcloud|gh)(\/|$)/, what: 'cloud credentials' },
  { test: /(^|\/)(credentials|secrets?)(\.[a-z]+)?$/i, what: 'a credentials file' },
  { test: /\.(pem|key|p12|pfx)$/i, what: 'a private key file' },
  { test: /^\/proc\/[^/]+\/(environ|mem|root|cwd|fd|map_files)(\/|$)/, what: "another process's environment, memory or files (/proc)" },
  { test: /(^|\/)id_(rsa|ecdsa|ed25519|dsa)$/, what: 'an SSH private key' },
  { test: /(^|\/)\.claude\/\.credentials\.json$/i, what: "Claude Code's login token" },
  // Airlock's key store (keys/master.secret unseals every SSH key it holds) and the egress
  // secrets: a task that read them and later sends data out is a critical chain too.
  { test: /(^|\/)(\.local\/share\/airlock|Library\/Application Support\/Airlock)\/(keys|secrets)(\/|$)/, what: "Airlock's key and secret store" },
  // The daemon's Claude Code session files (<sockets>/claude-code/<session>.task) hold a task's
  // token: whoever reads one can act as that session's task on request.sock.
  { test: SESSION_TOKEN, what: "a Claude Code session's task token (Airlock's)" },
];

/** What sensitivePart looks for, in its order. */
const SENSITIVE = [...RUNS_CODE_LATER, ...SECRETS];
/** One scan each that says whether any pattern of a list can match (any-pattern.ts): most paths match none. */
const mayDisable = anyPattern(DISABLES_APPROVER);
const mayRunCode = anyPattern(RUNS_CODE_LATER);
const maySecret = anyPattern(SECRETS);
const maySensitive = anyPattern(SENSITIVE);

/** The pattern lists themselves, for the test that the one-scan checks agree with them (test/unit/any-pattern.test.ts). */
export const RISK_PATTERN_LISTS = { DISABLES_APPROVER, RUNS_CODE_LATER, SECRETS, SENSITIVE } as const;

/**
 * The part of a path that makes it sensitive (".git/hooks", ".env.local", ".ssh" …), or
 * null. A wildcard grant covers a sensitive path only when its pattern names that part.
 */
export function sensitivePart(resource: string, claudeDirs: readonly string[] = []): string | null {
  const r = norm(resource);
  if (maySensitive(r)) {
    for (const x of SENSITIVE) {
      const m = x.test.exec(r);
      if (m) return m[0].replace(/^\/+|\/+$/g, '');
    }
  }
  // In a directory CLAUDE_CONFIG_DIR names: the part is said in the real path's words (the
  // directory and what follows it up to the sensitive name), so `/srv/cc/commands/*` names
  // it and `/srv/**` does not.
  if (!claudeDirs.length || !r.startsWith('/')) return null;
  const real = tidy(r);
  for (const alias of claudeAliases(r, claudeDirs)) {
    if (!maySensitive(alias)) continue;
    for (const x of SENSITIVE) {
      const m = x.test.exec(alias);
      if (!m) continue;
      if (!alias.startsWith(DEFAULT_CLAUDE_DIR)) return real.replace(/^\/+|\/+$/g, '');
      const rest = alias.length - DEFAULT_CLAUDE_DIR.length;
      const prefix = real.length - rest;
      const end = m.index + m[0].length;
      const realEnd = end <= DEFAULT_CLAUDE_DIR.length ? prefix : prefix + (end - DEFAULT_CLAUDE_DIR.length);
      return real.slice(0, realEnd).replace(/^\/+|\/+$/g, '') || real.replace(/^\/+|\/+$/g, '');
    }
  }
  return null;
}

export function runsCodeLater(resource: string, claudeDirs: readonly string[] = []): string | null {
  const r = norm(resource);
  for (const p of [r, ...claudeAliases(r, claudeDirs)]) {
    if (!mayRunCode(p)) continue;
    const what = RUNS_CODE_LATER.find((x) => x.test.test(p))?.what;
    if (what) return what;
  }
  return null;
}

/**
 * Why a write or delete of this path can switch Airlock off, or null. `ownPaths`: the running
 * daemon's own files and directories (database, keys, secrets, sockets, tasks/ — under a custom
 * AIRLOCK_HOME too — and the hook program, os/own-paths.ts), which the default locations above
 * cannot know. A delete of a directory
 * that holds one of them (`rm -rf ~`, `rm -rf $AIRLOCK_HOME`) removes it as well.
 */
export function disablesApprover(resource: string, ownPaths: readonly string[] = [], action: string = 'write', claudeDirs: readonly string[] = []): string | null {
  const r = norm(resource);
  const hit = mayDisable(r) ? DISABLES_APPROVER.find((x) => x.test.test(r))?.what : undefined;
  if (hit) return hit;
  // Claude Code's settings directory moved by CLAUDE_CONFIG_DIR (claude-config.ts).
  for (const alias of claudeAliases(r, claudeDirs)) {
    const moved = mayDisable(alias) ? DISABLES_APPROVER.find((x) => x.test.test(alias))?.what : undefined;
    if (moved) return `${moved}, in the directory CLAUDE_CONFIG_DIR names`;
  }
  if (ownPaths.some((d) => isWithin(r, d))) return "Airlock's own files (its history, keys, secrets, sockets, or the hook program Claude Code runs)";
  if (action === 'delete' && r !== '' && ownPaths.some((d) => isWithin(d, r))) return "a directory holding Airlock's own files (its history, keys, secrets, sockets, or the hook program Claude Code runs)";
  // Deleting or moving a directory that holds Claude Code's settings directory removes the hook too.
  if (action === 'delete' && r.startsWith('/') && [DEFAULT_CLAUDE_DIR, ...claudeDirs].some((d) => isWithin(d.toLowerCase(), r.toLowerCase().replace(/\/+$/, '') || '/'))) {
    return "a directory holding Claude Code's settings (its hooks, including Airlock's)";
  }
  return null;
}

/** The Bash tool's dangerouslyDisableSandbox, in any spelling Claude Code might accept (only false, null or absent is "no"). */
function escapesSandbox(args: unknown): boolean {
  if (!args || typeof args !== 'object' || Array.isArray(args)) return false;
  const v = (args as Record<string, unknown>).dangerouslyDisableSandbox;
  return v !== undefined && v !== null && v !== false && v !== 'false';
}

export function holdsSecrets(resource: string, claudeDirs: readonly string[] = []): string | null {
  const r = norm(resource);
  for (const p of [r, ...claudeAliases(r, claudeDirs)]) {
    if (!maySecret(p)) continue;
    const what = SECRETS.find((x) => x.test.test(p))?.what;
    if (what) return what;
  }
  return null;
}

const GIT_COMMIT = /(^|[\s;&|(])git(\s+-[^\s]+(\s+[^\s-][^\s]*)?)*\s+commit\b/;

/**
 * What a task did so far that the chain rules care about (allowed requests only).
 * Kept in memory per task and rebuilt from history after a restart.
 */
export interface TaskMemory {
  /** The first secret the task read. */
  secretRead?: string;
  /** The first git hook the task wrote. */
  hookWrite?: string;
  /** The first placeholder of a secret the task sent where that secret does not belong. */
  placeholderLeak?: string;
}

/** The tool of the event that records a placeholder sent to the wrong host (see broker.recordPlaceholderLeak). */
export const PLACEHOLDER_LEAK_TOOL = 'net.placeholder-leak';

const GIT_HOOK = /(^|\/)\.git\/hooks\//;

/**
 * Updates a task's memory with one allowed request; returns what it learned (empty: nothing
 * new). The risk of the task's prompts still waiting may have risen (prompt-queue.ts
 * reassessTask), and a secret read closes its open connections (egress-sockets.ts cut).
 */
export function remember(m: TaskMemory, action: string, resources: readonly string[], tool?: string, reason?: string, claudeDirs: readonly string[] = []): (keyof TaskMemory)[] {
  const before = { ...m };
  if (tool === PLACEHOLDER_LEAK_TOOL && !m.placeholderLeak) m.placeholderLeak = reason ?? 'a placeholder was sent where its secret does not belong';
  // Not only a request that is a read as a whole: `cat ~/.ssh/id_x; touch x` is a write (its
  // riskiest part) that reads a key, `cp ~/.ssh/id_x k` copies one, `tar czf o.tgz ~/.aws` archives
  // them. History keeps each event's action and resources, not its parts, so any allowed event but
  // a delete that names a secret counts (a write into ~/.ssh counts too: asking once more at the
  // next upload is the cheaper mistake).
  if (action !== 'delete' && !m.secretRead) m.secretRead = resources.find((x) => holdsSecrets(x, claudeDirs));
  if ((action === 'write' || action === 'execute') && !m.hookWrite) m.hookWrite = resources.find((x) => GIT_HOOK.test(x));
  return (['placeholderLeak', 'secretRead', 'hookWrite'] as const).filter((k) => before[k] !== m[k]);
}

export function rank(level: RiskLevel): number {
  return RISK_LEVELS.indexOf(level);
}

function commandOf(r: CoreRequest): string | null {
  const a = r.args as { command?: unknown } | null | undefined;
  if (a && typeof a === 'object' && typeof a.command === 'string') return a.command;
  if (r.tool === 'git' || r.tool === 'Bash' || r.tool === 'exec') return r.summary;
  return null;
}

/** What a reason quotes: the command as written, else `tool resource`. */
function triggerOf(r: CoreRequest): string {
  const cmd = commandOf(r);
  if (cmd) return `\`${cmd.length > 160 ? `${cmd.slice(0, 159)}…` : cmd}\``;
  return `${r.tool}${r.resource ? ` ${r.resource}` : ''}`.slice(0, 200);
}

export function assessRisk(r: CoreRequest, memory: TaskMemory, ownPaths: readonly string[] = []): Risk {
  const claudeDirs = r.claudeDirs ?? [];
  const reasons: string[] = [];
  let level: RiskLevel = r.action === 'read' || r.action === 'other' ? 'low' : 'medium';
  const raise = (to: RiskLevel, why: string) => {
    if (rank(to) > rank(level)) level = to;
    if (!reasons.includes(why)) reasons.push(why);
  };
  // Claude Code's Bash tool asks to leave Claude Code's own sandbox: Claude Code would ask the
  // human for that itself, and an "allow" from Airlock's hook would answer in its place. So it
  // is high (a read included): asked, never answered by the default policy.
  if (r.source === 'claude-code' && r.tool === 'Bash' && escapesSandbox(r.args)) raise('high', "runs outside Claude Code's own sandbox (dangerouslyDisableSandbox): Claude Code asks for this itself");
  // The generic reason quotes what does it: the command, or the tool and its resource.
  if (r.action !== 'read' && r.action !== 'other') reasons.push(`${r.action} is a high-impact action: ${triggerOf(r)}`);

  // What the request writes or deletes: all its resources for a write or delete, and the
  // write and delete parts of any command line (`make && echo {} > .claude/settings.json`
  // is an execute that still writes there).
  const changed = new Map<string, string>();
  if (r.action === 'write' || r.action === 'delete') for (const res of r.resources) changed.set(res, r.action);
  for (const p of r.parts ?? []) if (p.action === 'write' || p.action === 'delete') for (const res of p.resources) if (!changed.has(res)) changed.set(res, p.action);
  if (changed.size) {
    for (const [res, action] of changed) {
      const off = disablesApprover(res, ownPaths, action, claudeDirs);
      if (off) raise('critical', `${action} to ${off}: it can switch Airlock off, so no grant answers for it (${res})`);
      const what = runsCodeLater(res, claudeDirs);
      if (what && !off) raise('high', `${action} to ${what}: can run code later (${res})`);
    }
  }
  for (const res of r.resources) {
    const what = holdsSecrets(res, claudeDirs);
    if (!what) continue;
    // With parts, the command rules below say which part sends it (and a piped
    // `curl -d @.env … | sh` is an execute that still sends the secret).
    if (r.parts?.some((p) => p.action === 'transfer' && p.resources.includes(res))) continue;
    if (r.action === 'transfer') raise('critical', ruleText({ level: 'critical', rule: RULE.secretSent, trigger: triggerOf(r), why: `sends ${what} (${res}) out` }));
    else raise(r.action === 'read' ? 'medium' : 'high', `touches ${what} (${res})`);
  }
  // Unlike other secrets (a read stays silent, the chain rule watches what follows), a
  // session's task token is the power to act as that task: reading one is asked.
  const token = r.resources.find((res) => SESSION_TOKEN.test(norm(res)));
  if (token) raise('high', `reads or touches a Claude Code session's task token: whoever holds it can act as that session's task (${token})`);
  if (r.ssh) {
    const facts = (r.args ?? {}) as { confirmRequired?: unknown; hostKeyRevoked?: unknown };
    if (r.ssh.purpose === 'unknown') raise('high', 'signs data that is neither an SSH login nor an SSHSIG signature');
    if (r.ssh.forwarded) raise('high', 'comes through a forwarded agent connection (a remote host asks)');
    if (r.ssh.host === 'unverified-host' || r.resource?.endsWith('@unverified-host')) raise('high', 'the client did not prove which host it logs in to (no session binding)');
    // `ssh-add -c`: every use is confirmed by a person, never by a grant alone.
    if (facts.confirmRequired === true) raise('critical', 'the key was added with ssh-add -c: every use needs your confirmation');
    if (facts.hostKeyRevoked === true) raise('critical', 'the host key is marked @revoked in known_hosts');
  }
  // Only Airlock's SSH agent sets viaSshAgent: anything else saying "ssh" is the requester's
  // own word. An allow grant made from it would answer real ones (for a signature with
  // `key: null`, i.e. EVERY key; for ssh-add -D the real removal). Critical, so every UI
  // offers only Deny or Allow once (shared/prompt-choices.ts) and the daemon refuses an
  // allow grant from it on ui.sock too (friction.ts, the rule for every critical prompt).
  if (r.source === 'ssh' && !r.viaSshAgent) raise('critical', "says it comes from SSH, but it came through request.sock, not Airlock's SSH agent (it is the requester's own word): allowing it signs nothing, and it is asked every time");
  // ssh-add -d/-D/-x/-X on the shared agent socket (main/ssh/agent-admin.ts): removing
  // keys or locking the agent is answered one at a time, never by a suggested grant.
  if (r.source === 'ssh' && r.tool === 'ssh-agent') raise('high', 'changes the SSH agent itself (removes keys, or locks or unlocks it)');
  for (const c of r.classifierRisk) raise(c.level, c.reason);
  // Named rules over the command's parts (risk-rules.ts): a secret sent anywhere, a
  // download piped to a shell, the project archived and copied away; and the same chain
  // inside one command line (`cat .env | curl -d @- …`).
  if (r.parts?.length) {
    for (const h of commandRules({ parts: r.parts, classifierReasons: r.classifierRisk.map((c) => c.reason), holdsSecrets })) raise(h.level, ruleText(h));
  }

  if (r.egress?.local) raise('high', `connects to ${r.egress.local} (${r.egress.address})`);
  // The approver's own door: an agent there could try to answer its own prompts. Never by a grant alone.
  if (r.egress?.airlock) raise('critical', `connects to ${r.egress.airlock}: the agent would be talking to its own approver`);
  // Chains across the task: what it did earlier changes what this request means.
  if (r.task) {
    // A task that sent a secret's placeholder elsewhere is being steered by someone: every
    // later request of it asks the human (critical is never allowed by a grant alone).
    if (memory.placeholderLeak) raise('critical', memory.placeholderLeak);
    if (memory.secretRead && r.action === 'transfer') {
      raise('critical', `this task read secrets (${memory.secretRead}) and now sends data out`);
    }
    const cmd = commandOf(r);
    if (memory.hookWrite && cmd && GIT_COMMIT.test(cmd)) {
      raise('critical', `this task wrote a git hook (${memory.hookWrite}) and now runs git commit, which executes it`);
    }
  }
  return { level, reasons };
}
