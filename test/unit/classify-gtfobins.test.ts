// The GTFOBins corpus against the daemon: every snippet of https://gtfobins.github.io (read
// from a local copy at test time: GPL-3.0, see classify-gtfobins-corpus.ts) sent as a shell
// command in a task, judged by the oracle of classify-gtfobins-oracle.ts. What it found is
// also pinned by tests that always run (classify-gtfobins-holes.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { classifyShell } from '../../main/core/classify/shell';
import { assessRisk } from '../../main/core/risk';
import { suggest } from '../../main/core/suggest';
import { grantFromDecision } from '../../main/core/prompt-decisions';
import { lineCoveredBy, probeGrants } from '../fuzz/classify-write-grants';
import { loadGtfobins, TASK_DIR, type GtfoLine } from './classify-gtfobins-corpus';
import { EXECUTES, gtfoMiss, sibling } from './classify-gtfobins-oracle';
import { GTFO_EXCEPTIONS, GTFO_LINE_EXCEPTIONS, GTFO_SIBLING_EXCEPTIONS } from './classify-gtfobins-exceptions';

const corpus = loadGtfobins();
const skip = typeof corpus === 'string' ? corpus : false;
const lines: GtfoLine[] = typeof corpus === 'string' ? [] : corpus;

/** A scratch host directory standing for the sandbox's /tmp (the resolver follows links there: there are none). */
function withHostTmp<T>(fn: (hostTmp: string) => T): T {
  const hostTmp = mkdtempSync(path.join(tmpdir(), 'airlock-gtfo-'));
  try {
    mkdirSync(path.join(hostTmp, 'w'));
    return fn(hostTmp);
  } finally {
    rmSync(hostTmp, { recursive: true, force: true });
  }
}

/** The misses not excepted, and the exceptions that no longer miss (a stale entry fails too). */
function judge(found: Map<string, string>, exceptions: Record<string, string>): { unexpected: string[]; stale: string[] } {
  return {
    unexpected: [...found].filter(([id]) => !(id in exceptions)).map(([id, why]) => `${id}: ${why}`),
    stale: Object.keys(exceptions).filter((id) => !found.has(id)),
  };
}

test('GTFOBins: every snippet is judged as what it does (shell/command/…/library-load execute, upload/download transfer, file-write a change naming its file that no task-directory or suggested grant covers when it is a hook or outside)', { skip }, () => {
  const byFn = new Map<string, number>();
  for (const l of lines) byFn.set(l.fn, (byFn.get(l.fn) ?? 0) + 1);
  // The corpus is all there: a parser that lost the blocks would pass vacuously.
  assert.ok(lines.length >= 1000, `${lines.length} lines`);
  for (const fn of [...EXECUTES, 'file-write', 'file-read', 'upload', 'download']) assert.ok((byFn.get(fn) ?? 0) >= 9, `${fn}: ${byFn.get(fn) ?? 0} lines`);
  const found = new Map<string, string>();
  withHostTmp((hostTmp) => {
    for (const l of lines) {
      const why = gtfoMiss(l, probeGrants(l.command, hostTmp));
      if (why) found.set(l.id, `${why} — ${JSON.stringify(l.command).slice(0, 160)}`);
    }
  });
  const { unexpected, stale } = judge(found, GTFO_EXCEPTIONS);
  assert.deepEqual(unexpected, [], `judged wrongly (${unexpected.length} of ${lines.length}):\n${unexpected.join('\n')}`);
  assert.deepEqual(stale, [], 'exceptions the oracle no longer flags: remove them');
});

test('GTFOBins: the line that invokes the program, sent alone, is execute too (an agent sends the setup and the payload as separate commands)', { skip }, () => {
  const found = new Map<string, string>();
  for (const l of lines) {
    if (!EXECUTES.has(l.fn)) continue;
    const parts = l.command.split('\n');
    if (parts.length < 2) continue;
    const invocation = parts.filter((x) => x.includes(l.program)).pop();
    if (!invocation) continue;
    const c = classifyShell(invocation, TASK_DIR);
    if (c.action !== 'execute') found.set(l.id, `${c.action} — ${JSON.stringify(invocation).slice(0, 160)}`);
  }
  const { unexpected, stale } = judge(found, GTFO_LINE_EXCEPTIONS);
  assert.deepEqual(unexpected, [], `invocations judged less than execute:\n${unexpected.join('\n')}`);
  assert.deepEqual(stale, [], 'exceptions no longer flagged: remove them');
});

test('GTFOBins: the grant the prompt suggests for a line running /bin/sh does not cover the same line running rm -rf ~ instead', { skip }, () => {
  const found = new Map<string, string>();
  let known = 0;
  let unknown = 0;
  withHostTmp((hostTmp) => {
    for (const l of lines) {
      if (!EXECUTES.has(l.fn)) continue;
      const other = sibling(l.command);
      if (!other) continue;
      const { req } = probeGrants(l.command, hostTmp);
      // A program the classifier does not know may do anything with its arguments: the
      // prompt says so, and a grant for it is a grant for whatever it runs. The ones it knows
      // must not be taken for something narrower than what they run.
      const unknownNames = [l.program, l.command.split('\n').pop()!.trim().split(/\s+/)[0]].map((n) => `${n} is not a known read-only program`);
      if (req.classifierRisk.some((r) => unknownNames.includes(r.reason))) {
        unknown++;
        continue;
      }
      known++;
      const s = suggest(req, assessRisk(req, {}), TASK_DIR);
      if (!s) continue;
      const g = grantFromDecision(req, { id: 'p', decision: 'allow', scope: 'task', pattern: { tool: s.tool, resource: s.resource } }, 1_800_000_000_000).grant;
      if (lineCoveredBy(other, g, hostTmp)) found.set(l.id, `${s.resource} covers ${JSON.stringify(other).slice(0, 160)}`);
    }
  });
  assert.ok(known >= 40 && unknown >= 20, `${known} lines of programs the classifier knows, ${unknown} of programs it does not know`);
  const { unexpected, stale } = judge(found, GTFO_SIBLING_EXCEPTIONS);
  assert.deepEqual(unexpected, [], `suggested grants that cover another command:\n${unexpected.join('\n')}`);
  assert.deepEqual(stale, [], 'exceptions no longer flagged: remove them');
});
