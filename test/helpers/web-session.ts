// The set-up most web e2e tests share: the real daemon in web mode, Chromium with the UI
// open, an agent connection, a ui.sock connection and a scripted human, all closed when
// the test ends.
import type { TestContext } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { RpcClient } from '../../main/client/rpc-client';
import { Human } from './human';
import { launchChromium, openUi, startWebDaemon, watchPromptArrivals, type WebDaemon } from './web-ui';

export interface WebSession {
  d: WebDaemon;
  browser: Browser;
  page: Page;
  /** Console errors and page errors of the UI, for the test's last assertion. */
  errors: string[];
  agent: RpcClient;
  ui: RpcClient;
  human: Human;
}

/** The parts without a page: for tests that open their own browser contexts, or must act before the UI loads. */
export async function startWebParts(t: TestContext): Promise<Omit<WebSession, 'page' | 'errors'>> {
  const d = await startWebDaemon();
  const browser = await launchChromium();
  t.after(async () => {
    await browser.close();
    await d.stop();
  });
  const agent = await d.agent();
  const ui = await d.ui();
  const human = await Human.on(await d.ui());
  t.after(() => {
    agent.close();
    ui.close();
    human.ui.close();
  });
  return { d, browser, agent, ui, human };
}

/** `watchArrivals`: stamp each prompt card's arrival time (promptSeenAt). */
export async function openWebSession(t: TestContext, opts: { watchArrivals?: boolean } = {}): Promise<WebSession> {
  const parts = await startWebParts(t);
  const { page, errors } = await openUi(parts.browser, parts.d);
  if (opts.watchArrivals) await watchPromptArrivals(page);
  return { ...parts, page, errors };
}
