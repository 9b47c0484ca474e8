// Replays a recorded Claude Code session through the real `airlock hook claude-code`
// against a real daemon, with a scripted human who always accepts the suggested task
// pattern (or allows once when there is none). Issue 7's measure of prompt economy.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Prompt } from '../../main/contract/approver';
import { CLI, REPO, tempHome, type Daemon } from './daemon';

export const TRACE = path.join(REPO, 'test', 'fixtures', 'claude-code-bugfix-session.jsonl');
/** The repository path recorded in the trace; replaced by a temp dir at replay time. */
const RECORDED_ROOT = '/home/dev/date-utils';

export interface TraceLine {
  tool_name: string;
  tool_input: Record<string, unknown>;
  _replay?: { planted: string; mustPrompt: boolean };
  [k: string]: unknown;
}

export interface ReplayCall {
  index: number;
  tool: string;
  what: string;
  decision: string;
  prompted: boolean;
  risk?: string;
  suggestion?: string;
  planted?: string;
  mustPrompt?: boolean;
}

export interface ReplayReport {
  calls: ReplayCall[];
  prompts: ReplayCall[];
  /** Prompts that were not planted dangerous moments: the number to keep low. */
  ordinaryPrompts: ReplayCall[];
  /** Planted moments that should have prompted and did not (must be empty). */
  plantedMissed: ReplayCall[];
  msPerCall: number;
}

export function loadTrace(file = TRACE): TraceLine[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as TraceLine);
}

/** CI's short trace: every call that can change something, the planted moments, a few reads. */
export function shortTrace(lines: TraceLine[]): TraceLine[] {
  const reads = new Set(['Read', 'Grep', 'Glob', 'TodoWrite']);
  return lines.filter((l, i) => !reads.has(l.tool_name) || l._replay || i % 25 === 0);
}

function runHook(input: string, env: NodeJS.ProcessEnv): Promise<{ decision: string; reason: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [CLI, 'hook', 'claude-code'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => p.kill('SIGKILL'), 30_000);
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('error', reject);
    p.on('close', () => {
      clearTimeout(timer);
      try {
        const o = JSON.parse(out) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
        resolve({ decision: o.hookSpecificOutput.permissionDecision, reason: o.hookSpecificOutput.permissionDecisionReason });
      } catch {
        reject(new Error(`hook printed no decision: ${out} ${err}`));
      }
    });
    p.stdin.end(input);
  });
}

export async function replay(d: Daemon, lines: TraceLine[], onProgress?: (i: number, n: number) => void): Promise<ReplayReport> {
  const repo = tempHome('al-repo-');
  const home = tempHome('al-userhome-');
  const env = { ...d.env, HOME: home };
  const ui = await d.ui();
  let current: ReplayCall | null = null;
  ui.onNotification = (method, params) => {
    if (method !== 'pending.added') return;
    const p = params as Prompt;
    if (current) {
      current.prompted = true;
      current.risk = p.risk.level;
      current.suggestion = p.suggestion?.resource;
    }
    const decision = p.suggestion && p.task
      ? { id: p.id, decision: 'allow', scope: 'task', pattern: { tool: p.suggestion.tool, resource: p.suggestion.resource } }
      : { id: p.id, decision: 'allow', scope: 'once' };
    void ui.call('pending.decide', decision).catch(() => undefined);
  };
  await ui.call('subscribe');
  const calls: ReplayCall[] = [];
  const t0 = Date.now();
  try {
    for (const [index, line] of lines.entries()) {
      const { _replay, ...event } = line;
      const input = JSON.stringify(event).split(RECORDED_ROOT).join(repo);
      const ti = line.tool_input;
      const what = String(ti.command ?? ti.file_path ?? ti.pattern ?? ti.url ?? '').split(RECORDED_ROOT).join('.');
      current = { index, tool: line.tool_name, what, decision: '?', prompted: false, ...(_replay ? { planted: _replay.planted, mustPrompt: _replay.mustPrompt } : {}) };
      const r = await runHook(input, env);
      current.decision = r.decision;
      calls.push(current);
      current = null;
      onProgress?.(index + 1, lines.length);
    }
  } finally {
    ui.close();
  }
  const prompts = calls.filter((c) => c.prompted);
  return {
    calls,
    prompts,
    ordinaryPrompts: prompts.filter((c) => !c.planted),
    plantedMissed: calls.filter((c) => c.mustPrompt && !c.prompted),
    msPerCall: (Date.now() - t0) / lines.length,
  };
}
