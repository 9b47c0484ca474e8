// The fuzz targets of `npm run fuzz`, each for a few seconds with a fixed seed, so CI
// runs every oracle on every change (the long runs are `npm run fuzz`, 60 s per target).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FuzzReport } from './lib';
import { fuzz as jsonRpc } from './json-rpc.fuzz';
import { fuzz as mcpProxy } from './mcp-proxy.fuzz';
import { fuzz as shell } from './shell.fuzz';
import { fuzz as shellGrow } from './shell-grow.fuzz';
import { fuzz as sshCodec } from './ssh-codec.fuzz';

// Bounded by count (same inputs everywhere) and by time (a slow machine still finishes).
const SECONDS = Number(process.env.FUZZ_SMOKE_SECONDS ?? 10);
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);

function check(r: FuzzReport, minIterations: number): void {
  assert.deepEqual(r.failures.map((f) => `${f.kind}: ${f.message}\n  input: ${f.input.slice(0, 400)}`), [], `seed ${r.seed}`);
  assert.ok(r.iterations >= minIterations, `${r.target} ran only ${r.iterations} inputs in ${r.ms} ms`);
}

test(`fuzz smoke: ssh wire codec (seed ${SEED})`, async () => {
  const r = await sshCodec({ seconds: SECONDS, seed: SEED, maxIterations: 60_000 });
  check(r, 1000);
  // Reached past the parse-error path: real messages of several kinds were decoded.
  for (const k of ['msg:sign', 'msg:add', 'msg:list', 'decoder', 'signed:login', 'bind:true']) assert.ok((r.stats[k] ?? 0) > 0, `never produced ${k}`);
});

test(`fuzz smoke: request.sock and ui.sock of a live daemon (seed ${SEED})`, async () => {
  const r = await jsonRpc({ seconds: SECONDS, seed: SEED, maxIterations: 80 });
  check(r, 10);
  for (const code of ['-32700', '-32600', '-32602']) assert.ok((r.stats[`code${code}`] ?? 0) > 0, `no ${code} reply seen`);
});

test(`fuzz smoke: shell classifier in a watched worker (seed ${SEED})`, async () => {
  // The per-input limit is relaxed here: long commands are known to be slow (see
  // regressions.test.ts); hangs, throws and wrong answers still fail.
  const r = await shell({ seconds: SECONDS, seed: SEED, slowMs: 10_000, maxIterations: 400 });
  check(r, 50);
});

test(`fuzz smoke: shell classifier, reads grown by one flag, prefix or wrapper never get less severe (seed ${SEED})`, async () => {
  // Bounded by count (600 grown commands, the same on every machine: the stats below are
  // deterministic); the time bound only stops a machine far slower than ours.
  const r = await shellGrow({ seconds: Math.max(SECONDS, 90), seed: SEED, maxIterations: 600 });
  check(r, 600);
  // Every kind of growth was tried and reached a non-read.
  for (const k of ['unknown-flag:execute', 'danger-flag:execute', 'danger-flag:write', 'prefix:execute', 'wrapper:execute', 'text-wrapper:read']) assert.ok((r.stats[k] ?? 0) > 0, `never produced ${k}`);
});

test(`fuzz smoke: MCP proxy framing and call gate (seed ${SEED})`, async () => {
  const r = await mcpProxy({ seconds: SECONDS, seed: SEED, maxIterations: 15 });
  check(r, 5);
  assert.ok((r.stats.asked ?? 0) > 15, `only ${r.stats.asked} calls reached the gate`);
});
