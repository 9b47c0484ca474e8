// Issue 4: `airlock hook claude-code` for a Write a task grant allows, measured as a whole
// process (start-up, reading stdin, request.sock round trip, JSON out) beside a bare
// `node -e 0` in the same run, interleaved so machine load hits both alike. Aim: p50
// within 1.1× of bare Node start-up (issue 15; issue 4 asked 1.6×).
//
// run(): Promise<BenchResult> (see ./stats.ts): {title, markdown, figures} where figures =
//   { node_p50_ms, node_p99_ms,              bare `node -e 0`
//     hook_p50_ms, hook_p99_ms,              the installed hook: the native client (dist/native/airlock-hook)
//                                            when built, else node …/claude-code/bin.js
//     node_hook_p50_ms, node_hook_p99_ms,    the Node hook (node …/claude-code/bin.js)
//     cli_p50_ms,  cli_p99_ms,               `airlock hook claude-code` through the full CLI
//     shell_p50_ms, shell_p99_ms,            the exact installed command line through /bin/sh (hookCommand())
//     base_p50_ms?, base_p99_ms?,            BASELINE_DIST's installed hook (another build), when set
//     hook_ratio_p50, hook_ratio_p99, cli_ratio_p50, n }
// BASELINE_DIST=/path/to/other/dist: that build's hook (node …/claude-code/bin.js) too, against
// the same daemon, interleaved with the rest.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, startDaemon } from '../helpers/daemon';
import { hookCommand, nativeHookPath } from '../../main/integrations/claude-code/install';
import { fmt, mdTable, nowMs, summarize, type BenchResult } from './stats';

const N = Number(process.env.BENCH_HOOK_N ?? 40);
const HOOK_BIN = path.join(__dirname, '..', '..', 'main', 'integrations', 'claude-code', 'bin.js');
const BASELINE_DIST = process.env.BASELINE_DIST;
const BASE_BIN = BASELINE_DIST ? path.resolve(BASELINE_DIST, 'main', 'integrations', 'claude-code', 'bin.js') : null;

function timed(args: string[], env: NodeJS.ProcessEnv, input: string, exe: string = process.execPath): Promise<{ ms: number; out: string }> {
  return new Promise((resolve, reject) => {
    const t0 = nowMs();
    const p = spawn(exe, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d.toString()));
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error(`${args.join(' ')} took more than 30 s`));
    }, 30_000);
    p.on('close', () => {
      clearTimeout(timer);
      resolve({ ms: nowMs() - t0, out });
    });
    p.stdin.end(input);
  });
}

export async function run(): Promise<BenchResult> {
  const d = await startDaemon();
  try {
    const work = fs.mkdtempSync(path.join(d.home, 'bench-'));
    const agent = await d.agent();
    const { task, token } = await agent.call<{ task: string; token: string }>('task.start', { name: 'hook bench', cwd: work });
    agent.close();
    const ui = await d.ui();
    await ui.call('grants.create', { task, source: 'claude-code', tool: 'Write', action: 'write', resource: `${work}/**`, effect: 'allow' });
    ui.close();
    const sid = 'bench-session-0001';
    // The hook runs as `airlock task start -- claude` runs it: the task and its token in the
    // environment (a session file is the Claude Code process's own, main/os/session-owner.ts).
    const env: NodeJS.ProcessEnv = { ...d.env, AIRLOCK_TASK: task, AIRLOCK_TASK_TOKEN: token };
    const input = JSON.stringify({
      session_id: sid,
      transcript_path: '/tmp/t.jsonl',
      cwd: work,
      permission_mode: 'default',
      hook_event_name: 'PreToolUse',
      tool_name: 'Write',
      tool_input: { file_path: path.join(work, 'out.txt'), content: 'hello\n' },
    });
    const node: number[] = [];
    const hook: number[] = [];
    const nodeHook: number[] = [];
    const native = nativeHookPath();
    // The installed hook: what `--install` writes (the native client when this build has it).
    const installed = (): Promise<{ ms: number; out: string }> => (native ? timed([], env, input, native) : timed([HOOK_BIN], env, input));
    const cli: number[] = [];
    const shell: number[] = [];
    const base: number[] = [];
    const allowed = (label: string, r: { ms: number; out: string }) => {
      if (!r.out.includes('"permissionDecision":"allow"')) throw new Error(`${label} did not allow the granted Write: ${r.out}`);
      return r.ms;
    };
    // Warm the page cache for all of them first.
    await timed(['-e', '0'], env, '');
    await timed([HOOK_BIN], env, input);
    await installed();
    await timed([CLI, 'hook', 'claude-code'], env, input);
    await timed(['-c', hookCommand({ env })], env, input, '/bin/sh');
    if (BASE_BIN) await timed([BASE_BIN], env, input);
    for (let i = 0; i < N; i++) {
      node.push((await timed(['-e', '0'], env, '')).ms);
      hook.push(allowed('the installed hook', await installed()));
      nodeHook.push(allowed('the Node hook', await timed([HOOK_BIN], env, input)));
      cli.push((await timed([CLI, 'hook', 'claude-code'], env, input)).ms);
      shell.push(allowed('the installed command line', await timed(['-c', hookCommand({ env })], env, input, '/bin/sh')));
      if (BASE_BIN) base.push(allowed('BASELINE_DIST hook', await timed([BASE_BIN], env, input)));
    }
    const n = summarize(node);
    const h = summarize(hook);
    const nh = summarize(nodeHook);
    const c = summarize(cli);
    const sh = summarize(shell);
    const b = BASE_BIN ? summarize(base) : null;
    const figures = {
      node_p50_ms: n.p50,
      node_p99_ms: n.p99,
      hook_p50_ms: h.p50,
      hook_p99_ms: h.p99,
      cli_p50_ms: c.p50,
      cli_p99_ms: c.p99,
      node_hook_p50_ms: nh.p50,
      node_hook_p99_ms: nh.p99,
      hook_ratio_p50: h.p50 / n.p50,
      hook_ratio_p99: h.p99 / n.p99,
      cli_ratio_p50: c.p50 / n.p50,
      shell_p50_ms: sh.p50,
      shell_p99_ms: sh.p99,
      ...(b ? { base_p50_ms: b.p50, base_p99_ms: b.p99 } : {}),
      n: N,
    };
    const row = (label: string, s: { p50: number; p99: number }) => [label, fmt(s.p50), fmt(s.p99), `${(s.p50 / n.p50).toFixed(2)}×`, `${(s.p99 / n.p99).toFixed(2)}×`];
    const markdown =
      mdTable(['process (granted Write)', 'p50', 'p99', 'p50 ÷ node', 'p99 ÷ node'], [
        ['`node -e 0` (baseline)', fmt(n.p50), fmt(n.p99), '1.00×', '1.00×'],
        row(native ? 'hook as installed: the native client (`dist/native/airlock-hook`)' : 'hook as installed (`node …/claude-code/bin.js`; no native client in this build)', h),
        ...(native ? [row('the Node hook (`node …/claude-code/bin.js`)', nh)] : []),
        row('`airlock hook claude-code` (full CLI)', c),
        row(`the installed command line through \`/bin/sh\` (\`unset …; exec ${native ? '…/airlock-hook' : 'node …/bin.js'}\`)`, sh),
        ...(b ? [row(`BASELINE_DIST's hook (\`${BASELINE_DIST}\`)`, b)] : []),
      ]) +
      `\n\n${N} interleaved runs each. ${native ? 'The installed hook is the native client (plain C: read stdin, check the socket, send `hook.claudeCode`, print the answer; the daemon maps and decides). ' : ''}The Node hook is \`bin.js\` + one esbuild bundle (no zod, no commander, now only a relay)` +
      `${(process.versions.node.split('.').map(Number) as number[])[0]! >= 22 ? ', with the module compile cache' : ` (Node ${process.version} has no module compile cache; from Node 22.1 it is used)`}. ` +
      `Aim (issue 15): the installed hook within 1.1× of bare Node at p50 ` +
      `(${figures.hook_ratio_p50 <= 1.1 ? 'met' : 'NOT met'} in this run).`;
    return { title: 'Claude Code hook: whole process for a granted Write', markdown, figures };
  } finally {
    await d.stop();
  }
}
