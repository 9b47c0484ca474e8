// The tray app itself through Playwright's _electron: a request opens its pop-up, a click
// answers it, and the page sees only the contract on window.airlock. Runs wherever the
// Electron binary exists (with a display and better-sqlite3 built for Electron's ABI);
// elsewhere it reports itself skipped with the reason — never a fake pass.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { _electron, type Page } from 'playwright-core';
import type { AgentAnswer } from '../../main/contract/agent';
import { approverMethods } from '../../main/contract/approver';
import { RpcClient } from '../../main/client/rpc-client';
import { REPO, tempHome, waitFor } from '../helpers/daemon';

const OUT = path.join(__dirname, '..', '..');
const MAIN = path.join(OUT, 'main', 'electron', 'main.js');

/**
 * The Electron binary, or why the test cannot run here — in Airlock's words
 * (scripts/lib/electron-binary.cjs), never Electron's own "delete node_modules/electron
 * and try installing again", which is wrong when the download was skipped or impossible.
 */
function electronOrReason(): { bin: string } | { reason: string } {
  const { electronBinary } = require(path.join(REPO, 'scripts', 'lib', 'electron-binary.cjs')) as {
    electronBinary(root: string): { ok: true; bin: string } | { ok: false; reason: string; fix: string };
  };
  const e = electronBinary(REPO);
  if (!e.ok) return { reason: `${e.reason}; the tray app test needs it (${e.fix})` };
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return { reason: 'Electron binary found but no display: run the tests under xvfb-run' };
  }
  // The tray app loads better-sqlite3 built for Electron's ABI from native/electron/ (npm start builds it).
  const forElectron = path.join(REPO, 'native', 'electron', 'better_sqlite3.node');
  if (!fs.existsSync(forElectron)) return { reason: 'better-sqlite3 is not built for Electron\'s ABI yet: run `node scripts/electron-native.mjs` (npm start does it once)' };
  try {
    execFileSync(e.bin, ['-e', `require(${JSON.stringify(forElectron)})`], { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, stdio: 'pipe', timeout: 30_000 });
  } catch (err) {
    return { reason: `native/electron/better_sqlite3.node does not load in Electron (rebuild it: node scripts/electron-native.mjs): ${String((err as { stderr?: Buffer }).stderr ?? err).split('\n').find((l) => /Error|NODE_MODULE_VERSION/.test(l)) ?? ''}` };
  }
  if (!fs.existsSync(MAIN)) return { reason: `${MAIN} is not built` };
  return { bin: e.bin };
}

const found = electronOrReason();

test('tray app: request → pop-up → click → answer', { timeout: 120_000 }, async (t) => {
  if ('reason' in found) {
    t.skip(found.reason);
    return;
  }
  const home = tempHome();
  const app = await _electron.launch({ executablePath: found.bin, args: [MAIN], env: { ...process.env, AIRLOCK_HOME: home } });
  t.after(() => app.close());
  const main = await app.firstWindow();
  await main.waitForSelector('[data-testid=nav-pending]');
  assert.match(main.url(), /^airlock:\/\/app\//, 'served from the custom protocol, not file://');

  // The page sees the contract and nothing else: no Node, no raw ipcRenderer.
  const exposed = (await main.evaluate('Object.keys(window.airlock).sort()')) as string[];
  assert.deepEqual(exposed, [...Object.keys(approverMethods), 'onNotification'].sort());
  assert.equal(await main.evaluate('typeof window.require + typeof window.process + typeof window.ipcRenderer'), 'undefinedundefinedundefined');

  const requestSock = path.join(home, 'request.sock');
  await waitFor(() => fs.existsSync(requestSock), 'request.sock');
  const agent = await RpcClient.connect(requestSock);
  t.after(() => agent.close());
  const answer = agent.call<AgentAnswer>('request', { source: 'api', tool: 'fs.write', action: 'write', resource: '/tmp/electron-e2e', summary: 'write /tmp/electron-e2e' });
  const popup: Page = await app.waitForEvent('window', { predicate: (p) => p.url().includes('?prompt='), timeout: 30_000 });
  await popup.waitForSelector('[data-testid=prompt][data-armed=true]');
  assert.equal(await popup.textContent('[data-testid=prompt-resource]'), '/tmp/electron-e2e');
  // The pop-up is shown inactive: when a click is what gives it the keyboard focus, the
  // focus re-arms the card's guard and that click answers nothing; one after the guard does.
  let answered = false;
  answer.then(() => (answered = true), () => (answered = true));
  await popup.click('[data-testid=choice-once]');
  const first = await Promise.race([answer.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 800))]);
  if (!first) {
    // The click was the focus click (answered nothing), or it answered and the answer is
    // slow on a loaded machine: then the pop-up closes under this second click.
    await popup.waitForSelector('[data-testid=prompt][data-armed=true]').catch((e: unknown) => {
      if (!answered) throw e;
    });
    if (!answered) await popup.click('[data-testid=choice-once]').catch((e: unknown) => {
      if (!answered) throw e;
    });
  }
  const a = await answer;
  assert.equal(a.decision, 'allow');
  await waitFor(() => popup.isClosed(), 'the pop-up to close once answered');
});
