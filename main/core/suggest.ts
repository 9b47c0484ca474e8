// Suggested grant patterns for "allow for this task" (prompt economy): wide enough that
// the next similar request does not ask again, never so wide that it reaches what is
// dangerous. The human can edit the suggestion before accepting it.
import * as path from 'node:path';
import { escapeGlob } from './glob';
import type { CoreRequest } from './request';
import { workspaceOf } from './workspace';
import { unknownProgram, wrappedStart } from './classify/sh-commands';
import { sensitivePart } from './risk';
import type { Risk } from '../contract/common';

export interface Suggestion {
  tool: string;
  resource: string;
  label: string;
}

/** Runners whose next word names what runs: `npm run test`, `npx tsc`, `cargo test` (`{conda,conda *}` for `conda install x` covered `conda run … CMD`). */
const TWO_WORD = new Set(['npm', 'pnpm', 'yarn', 'bun', 'npx', 'pnpx', 'bunx', 'uvx', 'git', 'cargo', 'go', 'make', 'docker', 'podman', 'kubectl', 'pip', 'pip3', 'poetry', 'pipenv', 'pdm', 'uv', 'python', 'python3', 'node', 'deno', 'gradle', 'mvn', 'dotnet', 'gh', 'terraform', 'helm', 'brew', 'apt', 'bundle', 'rake', 'mix', 'swift', 'ssh', 'conda', 'mamba', 'micromamba', 'pixi', 'hatch', 'nix']);
const THREE_WORD = /^(npm|pnpm|yarn|bun) run$|^(npm|pnpm|yarn) (exec|dlx)$|^git (stash|remote|submodule|worktree)$|^docker compose$|^go mod$|^cargo (run|build)$|^bundle exec$|^(uv|poetry|pipenv|pdm) run$|^(docker|podman) (run|exec)$/;
/**
 * Runners whose next word is what they run (a package, a program, an image, a host): a
 * pattern without that word lets them run anything. `npm exec /bin/sh` was offered
 * `{npm exec,npm exec *}`, which covered `npm exec rm -rf ~` (GTFOBins corpus); when that
 * word is an option or not plain, only the exact command is offered.
 */
const RUNS_NEXT = /^(npx|pnpx|bunx|uvx|ssh)$|^(npm|pnpm|yarn) (exec|dlx)$|^bundle exec$|^(uv|poetry|pipenv|pdm) run$|^(docker|podman) (run|exec)$/;
/** Build tools whose leading options (and these options' values) say what is built where. */
const BUILD_VALUED: Record<string, ReadonlySet<string> | undefined> = Object.assign(Object.create(null) as Record<string, ReadonlySet<string> | undefined>, {
  make: new Set(['-C', '-f', '-I', '-o', '-W', '--directory', '--file', '--makefile', '--include-dir']),
  gmake: new Set(['-C', '-f', '-I', '-o', '-W', '--directory', '--file', '--makefile', '--include-dir']),
  cmake: new Set(['--build', '--install', '-S', '-B', '-P', '-C', '-G', '-E', '-D', '-U', '-T', '-A', '--preset', '--target', '-t', '--config', '--toolchain']),
});
const CLAUDE_FILE_TOOLS = ['Edit', 'MultiEdit', 'NotebookEdit', 'Write'];
const PLAIN_WORD = /^[A-Za-z0-9][A-Za-z0-9:._@/+-]*$/;

/** `npm run test src/a.test.ts` → `{npm run test,npm run test *}`; null when it cannot be generalised safely. */
export function commandPattern(command: string): string | null {
  // Output plumbing does not change what runs: `npm test 2>&1`, `make >/dev/null`.
  const words = command
    .trim()
    .split(/\s+/)
    .filter((w) => !/^\d*(>>?|>&|&>)(\d+|\/dev\/null)?$/.test(w));
  const head = headWords(words, 0);
  if (!head) return null;
  const text = head.map(escapeGlob).join(' ');
  return `{${text},${text} *}`;
}

/** A wrapper's own words (`-n`, `5`, `FOO=1`): plain, no glob or quote. */
const WRAPPER_WORD = /^[A-Za-z0-9+-][A-Za-z0-9:._@/+=,-]*$/;

/** The words a pattern keeps before its `*`; null when no pattern is narrow enough. */
function headWords(words: string[], depth: number): string[] | null {
  // Only the head words must be plain: the rest is what `*` stands for. Anything the
  // arguments run ($(…), pipes) is a part of its own that needs its own grant.
  if (words.length === 0 || !PLAIN_WORD.test(words[0]!)) return null;
  // A wrapper (timeout, nice, env, nohup …) is kept with what it runs: `{timeout,timeout *}`
  // would run anything for a while.
  const inner = wrappedStart(words);
  if (inner !== undefined) {
    if (inner === null || depth >= 4 || !words.slice(1, inner).every((w) => WRAPPER_WORD.test(w))) return null;
    const rest = headWords(words.slice(inner), depth + 1);
    return rest ? [...words.slice(0, inner), ...rest] : null;
  }
  // A program the classifier does not know may be a wrapper (aa-exec, cpulimit, a project's
  // ./with-env.sh): `{X,X *}` would run anything through it. Decided here: its first argument
  // is kept when it is a plain word (`{valgrind-like rm,… *}`, `{./gradlew build,… *}`), and
  // with an option or nothing there, only the exact command is offered.
  if (unknownProgram(words)) {
    if (!words[1] || !PLAIN_WORD.test(words[1]) || words[1].startsWith('-')) return null;
    return words.slice(0, 2);
  }
  // Build tools keep their options up to the target: `make -C sub test` and `cmake --build
  // build` were offered `{make,make *}` and `{cmake,cmake *}`, which ran another directory's
  // build (`make -C /tmp/x`) or any tool (`cmake -E …`).
  const valued = BUILD_VALUED[path.basename(words[0]!)];
  if (valued) {
    let i = 1;
    while (i < words.length && i < 8 && words[i]!.startsWith('-')) i += valued.has(words[i]!) ? 2 : 1;
    const head = words.slice(0, Math.min(words.length, i + 1));
    return head.every((w) => PLAIN_WORD.test(w) || WRAPPER_WORD.test(w)) && i < 8 ? head : null;
  }
  let keep = 1;
  if (TWO_WORD.has(path.basename(words[0]!)) && words[1] && PLAIN_WORD.test(words[1]) && !words[1].startsWith('-')) {
    keep = 2;
    if (words[2] && THREE_WORD.test(`${words[0]} ${words[1]}`) && PLAIN_WORD.test(words[2]) && !words[2].startsWith('-')) keep = 3;
  }
  if (RUNS_NEXT.test(path.basename(words[0]!)) && keep < 2) return null;
  if (keep === 2 && RUNS_NEXT.test(`${path.basename(words[0]!)} ${words[1]}`)) return null;
  return words.slice(0, keep);
}

function under(dir: string, p: string): string | null {
  const rel = path.relative(dir, p);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return null;
  return rel;
}

/** The smallest directory glob under `cwd` covering every path: `/repo/src/**`, or `/repo/*` for top-level files. */
export function directoryPattern(cwd: string, paths: string[]): { pattern: string; label: string } | null {
  const tops = new Set<string>();
  for (const p of paths) {
    if (!path.isAbsolute(p)) return null;
    const rel = under(cwd, path.normalize(p));
    if (rel === null) return null;
    const segs = rel.split(path.sep);
    tops.add(segs.length === 1 ? '*' : `${segs[0]}/**`);
  }
  if (tops.size === 0) return null;
  const base = escapeGlob(cwd.replace(/\/+$/, ''));
  const rels = [...tops].sort();
  if (rels.length === 1) return { pattern: `${base}/${rels[0]}`, label: rels[0]! };
  if (rels.length > 3) return null;
  return { pattern: `${base}/{${rels.join(',')}}`, label: `{${rels.join(',')}}` };
}

/**
 * What "allow for this task" should grant. Undefined when nothing wider than this exact
 * request is safe: critical requests, secrets, places that run code later, paths
 * outside the task's working directory.
 */
export function suggest(r: CoreRequest, risk: Risk, taskCwd: string | null): Suggestion | undefined {
  // Dangerous requests are answered one at a time: high covers curl | sh, hooks, secrets.
  if (risk.level === 'critical' || risk.level === 'high') return undefined;
  const cwd = workspaceOf(taskCwd ?? r.cwd);
  // The tool as a pattern that matches only itself (a tool may be named `*`).
  const exactTool = escapeGlob(r.tool);
  if (r.resources.some((x) => sensitivePart(x, r.claudeDirs) !== null)) return undefined;

  if (r.ssh) {
    if (r.ssh.forwarded || r.ssh.purpose === 'unknown' || !r.resource) return undefined;
    const label = r.ssh.purpose === 'login' ? `log in as ${r.resource} with this key` : `sign (${r.resource.replace(/^sshsig:/, 'namespace ')}) with this key`;
    return { tool: exactTool, resource: escapeGlob(r.resource), label };
  }

  if (r.parts?.length) {
    const open = r.parts.filter((p) => p.action !== 'read');
    // Nothing but the request itself can be allowed for a part that writes files it does not list.
    if (open.some((p) => p.unlisted)) return undefined;
    const pats: string[] = [];
    for (const p of open.length ? open : r.parts) {
      if (p.resources.some((x) => x.startsWith('/') && (!cwd || under(cwd, x) === null) && x !== cwd)) return undefined;
      // A transfer's destination is never generalised (issue 11): `scp build.tgz host:` must
      // not become "any scp", `git push origin main` not "any push" — exactly this command.
      const pat = p.action === 'transfer' ? escapeGlob(p.command.trim()) : commandPattern(p.command);
      if (!pat) return undefined;
      if (!pats.includes(pat)) pats.push(pat);
    }
    if (pats.length === 0 || pats.length > 4) return undefined;
    const resource = pats.length === 1 ? pats[0]! : `{${pats.join(',')}}`;
    const label = pats.map((x) => (x.startsWith('{') ? x.replace(/^\{([^,]*),.*$/, '$1 *') : `exactly: ${x}`).replace(/\\(.)/g, '$1')).join(', ');
    return { tool: exactTool, resource, label };
  }

  const paths = r.resources.filter((x) => x.startsWith('/'));
  if (paths.length && paths.length === r.resources.length) {
    if (!cwd) return undefined;
    const d = directoryPattern(cwd, paths);
    if (!d) return undefined;
    // Claude Code's file tools all write files: one grant for the directory, whichever the agent picks next.
    const anyFileTool = r.source === 'claude-code' && CLAUDE_FILE_TOOLS.includes(r.tool);
    const tool = anyFileTool ? `{${CLAUDE_FILE_TOOLS.join(',')}}` : exactTool;
    return { tool, resource: d.pattern, label: `${r.action} ${d.label} (${anyFileTool ? 'any file tool' : r.tool})` };
  }
  if (r.resources.length === 0) return { tool: exactTool, resource: '**', label: `${r.tool} (any arguments)` };
  // Hosts, URLs, remotes: the exact ones, for this tool.
  const exact = r.resources.length === 1 ? escapeGlob(r.resources[0]!) : `{${r.resources.map(escapeGlob).join(',')}}`;
  return { tool: exactTool, resource: exact, label: `${r.action} ${r.resources.join(', ')} (${r.tool})` };
}
