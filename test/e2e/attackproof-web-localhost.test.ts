// Red team of the web UI's proof handshake: the proof names the port, not the address. A tab
// opened at http://localhost:PORT (the Host check allows it; ssh -L users type it) goes to
// [::1]:PORT first, and the daemon listened on 127.0.0.1 only: another local user listening
// on [::1]:PORT while the daemon ran served that tab (its own page would read #token=) or
// relayed it, handshake and all, to the daemon and then spoke inside the proven session.
// Real daemon, real Chromium, a real listener on [::1].
import assert from 'node:assert/strict';
import * as http from 'node:http';
import { test } from 'node:test';
import { startDaemon } from '../helpers/daemon';
import { browserMissing, launchChromium, startWebDaemon } from '../helpers/web-ui';

const skip = browserMissing();

/** Another process listening on [::1]:port; resolves to its error code when it cannot. */
function listenV6(port: number): Promise<{ heard: string[]; close(): Promise<void> } | string> {
  const heard: string[] = [];
  const server = http.createServer((req, res) => {
    heard.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<title>not airlock</title><script>/* would read location.hash here */</script>');
  });
  server.on('upgrade', (req, socket) => (heard.push(`UPGRADE ${req.url}`), socket.destroy()));
  return new Promise((resolve) => {
    server.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    server.listen(port, '::1', () => resolve({ heard, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) }));
  });
}

test('web UI at localhost: another process cannot listen on [::1] at the daemon\'s port, and a tab opened at http://localhost:PORT reaches the daemon', { skip: skip ?? false, timeout: 90_000 }, async (t) => {
  const d = await startWebDaemon();
  const browser = await launchChromium();
  let squatter: { close(): Promise<void> } | null = null;
  t.after(async () => {
    await squatter?.close();
    await browser.close();
    await d.stop();
  });
  const got = await listenV6(d.port);
  if (typeof got !== 'string') squatter = got;
  const page = await (await browser.newContext()).newPage();
  await page.goto(`http://localhost:${d.port}/#token=${d.token}`);
  const heard = typeof got === 'string' ? [] : got.heard;
  assert.deepEqual(heard, [], 'the tab at localhost went to the other listener on [::1]');
  assert.equal(got, 'EADDRINUSE', 'the daemon holds [::1] at its port');
  await page.waitForSelector('[data-testid=nav-pending]', { timeout: 20_000 });
  await page.getByTestId('connection-banner').waitFor({ state: 'detached', timeout: 20_000 });
});

test('web UI: a listener already on [::1] at the saved port makes the daemon take another port, and an explicit --port there is refused', { timeout: 90_000 }, async (t) => {
  const d = await startWebDaemon();
  const port = d.port;
  await d.stop();
  const squat = await listenV6(port);
  assert.notEqual(typeof squat, 'string', `could not listen on [::1]:${port}: ${String(squat)}`);
  if (typeof squat === 'string') return;
  t.after(() => squat.close());
  // Restart with no --port: web.json names the old port, whose [::1] twin is taken.
  const again = await startDaemon({ home: d.home, args: ['--web'] });
  try {
    const m = /web UI http:\/\/127\.0\.0\.1:(\d+)\//.exec(again.output());
    assert.ok(m, again.output());
    assert.notEqual(Number(m[1]), port, 'the daemon shared localhost:PORT with another listener');
  } finally {
    await again.stop();
  }
  // Asked for that port by name: it says why it will not, instead of serving half of it.
  const explicit = await startDaemon({ home: d.home, args: ['--web', '--port', String(port)] }).then(
    async (x) => (await x.stop(), `started: ${x.output()}`),
    (e: Error) => e.message,
  );
  assert.match(explicit, /port \d+ on \[::1\] \(a tab at http:\/\/localhost:\d+ would reach that program, not Airlock\) is in use by another program/);
});
