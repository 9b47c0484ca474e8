// The web UI under test: the real daemon with --web, Debian's Chromium through
// playwright-core, and small page helpers shared by the e2e tests.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startDaemon, type Daemon } from './daemon';

export const CHROMIUM = process.env.AIRLOCK_CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
/** Screenshots of every view (gitignored); the best are copied to docs/screenshots by hand. */
export const SHOTS = path.join(__dirname, '..', '..', '..', 'test-results', 'screenshots');

/** Why the browser tests cannot run here, or null when they can. */
export function browserMissing(): string | null {
  return fs.existsSync(CHROMIUM) ? null : `Chromium not found at ${CHROMIUM} (apt-get install chromium, or set AIRLOCK_CHROMIUM)`;
}

export interface WebDaemon extends Daemon {
  url: string;
  origin: string;
  port: number;
  token: string;
}

export async function startWebDaemon(opts: { home?: string; env?: NodeJS.ProcessEnv } = {}): Promise<WebDaemon> {
  const d = await startDaemon({ ...opts, args: ['--web', '--port', '0'] });
  const m = /web UI (http:\/\/127\.0\.0\.1:(\d+)\/#token=([A-Za-z0-9_-]+))/.exec(d.output());
  if (!m) {
    await d.stop();
    throw new Error(`the daemon printed no web UI URL:\n${d.output()}`);
  }
  return Object.assign(d, { url: m[1]!, port: Number(m[2]), token: m[3]!, origin: `http://127.0.0.1:${m[2]}` });
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

export async function openUi(browser: Browser, d: WebDaemon, colorScheme: 'light' | 'dark' = 'light'): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ colorScheme, viewport: { width: 1280, height: 860 }, acceptDownloads: true });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  await page.goto(d.url);
  await page.waitForSelector('[data-testid=nav-pending]');
  return { context, page, errors };
}

/**
 * Records, inside the page, the wall-clock time each prompt card first appears (a
 * MutationObserver, so the measure does not include Playwright's polling).
 */
// Page-side scripts are strings: the Node-side tsconfig has no DOM types, on purpose.
const OBSERVE_PROMPTS = `(() => {
  window.__seen = {};
  const scan = () => {
    for (const el of document.querySelectorAll('[data-prompt-id]')) {
      const id = el.getAttribute('data-prompt-id');
      if (!(id in window.__seen)) window.__seen[id] = Date.now();
    }
  };
  new MutationObserver(scan).observe(document.body, { childList: true, subtree: true });
  scan();
})()`;

export async function watchPromptArrivals(page: Page): Promise<void> {
  await page.evaluate(OBSERVE_PROMPTS);
}

export async function promptSeenAt(page: Page, id: string, timeoutMs = 30_000): Promise<number> {
  // Polled from here: waitForFunction(string) would need eval, which the page's CSP forbids.
  const expr = `(window.__seen && window.__seen[${JSON.stringify(id)}]) || 0`;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const at = (await page.evaluate(expr)) as number;
    if (at) return at;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`prompt ${id} did not appear within ${timeoutMs} ms`);
}

export async function shot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SHOTS, { recursive: true });
  const file = path.join(SHOTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/**
 * Waits until the card's input guard has passed (buttons live) and stays passed over two
 * frames, as a human sees a button before clicking it. A change the test itself just made
 * (typing a pattern) can move the buttons, and the card holds its guard again when it sees
 * that, which a ResizeObserver reports on the next frame (use-still-choices.ts).
 */
export async function waitArmed(page: Page, promptId: string): Promise<void> {
  const sel = `[data-prompt-id="${promptId}"][data-armed="true"]`;
  const deadline = Date.now() + 20_000;
  for (let i = 0; i < 50; i++) {
    await page.waitForSelector(sel, { timeout: Math.max(1, deadline - Date.now()) });
    await page.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(null))))');
    if (await page.$(sel)) return;
  }
  throw new Error(`prompt ${promptId}: its guard kept starting again (50 times)`);
}

/**
 * Waits until a page-side expression is truthy. Polled from Node with evaluate (CDP),
 * because page.waitForFunction(string) compiles the string with eval inside the page,
 * which the renderer's CSP rightly refuses.
 */
export async function waitForPage(page: Page, expr: string, timeoutMs = 30_000): Promise<unknown> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await page.evaluate(expr);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${expr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
