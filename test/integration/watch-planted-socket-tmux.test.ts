// `airlock watch` meets a socket directory another user planted (os/socket-trust.ts): with no
// XDG_RUNTIME_DIR and no AIRLOCK_HOME the sockets live in $TMPDIR/airlock-<uid>, a name any
// local user can take first. Another user (uid 65534) makes it a directory of theirs holding
// a fake ui.sock. Watch, in tmux as a person runs it, must say it will not connect, and why,
// and what to do — and keep retrying without ever connecting to the fake. Needs root (to make
// files of another user) and tmux.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI, waitFor } from '../helpers/daemon';

const NOBODY = 65534;
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const skip = (process.getuid?.() !== 0 && 'needs root to plant files as another user (uid 65534)') || (!hasTmux && 'tmux is not installed');
const session = `airlock-watch-planted-${process.pid}`;
const tmux = (...args: string[]): string => execFileSync('tmux', args, { encoding: 'utf8' });
const cleanups: (() => void)[] = [];
after(() => {
  for (const c of cleanups.reverse()) {
    try {
      c();
    } catch {
      // best effort
    }
  }
});

test('watch with a planted $TMPDIR/airlock-<uid>: shows "will not connect", why and what to do, and never connects (wrapped, not cut, in 100 columns)', { skip }, async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'al-wplant-'));
  cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }));
  const tmp = path.join(root, 'tmp');
  fs.mkdirSync(tmp);
  fs.chmodSync(tmp, 0o1777);
  fs.mkdirSync(path.join(root, 'home'));
  const sockets = path.join(tmp, `airlock-${process.getuid!()}`);
  fs.mkdirSync(sockets, { mode: 0o755 });
  fs.chownSync(sockets, NOBODY, NOBODY);

  // The other user's fake daemon on ui.sock: counts connections, answers nothing.
  let connections = 0;
  const fake = net.createServer((s) => {
    connections++;
    s.on('error', () => undefined);
  });
  const uiSock = path.join(sockets, 'ui.sock');
  await new Promise<void>((r) => fake.listen(uiSock, r));
  cleanups.push(() => fake.close());
  fs.chmodSync(uiSock, 0o777);
  fs.lchownSync(uiSock, NOBODY, NOBODY);

  // The user's environment: no XDG_RUNTIME_DIR, no AIRLOCK_HOME (unset inside the pane, as
  // the tmux server may have them from whoever started it).
  tmux(
    'new-session', '-d', '-s', session, '-x', '100', '-y', '40',
    'env', '-u', 'XDG_RUNTIME_DIR', '-u', 'AIRLOCK_HOME', '-u', 'AIRLOCK_UI_SOCK', '-u', 'AIRLOCK_REQUEST_SOCK',
    `TMPDIR=${tmp}`, `HOME=${path.join(root, 'home')}`, `XDG_DATA_HOME=${path.join(root, 'home', 'data')}`,
    process.execPath, CLI, 'watch',
  );
  cleanups.push(() => tmux('kill-session', '-t', session));
  // The message is long: watch wraps it over several lines at spaces; read it as one text.
  const screen = () => tmux('capture-pane', '-p', '-t', session).replace(/\s+/g, ' ');

  // The whole message (it ends with the retry promise): tmux may take a frame in two reads.
  await waitFor(() => /Airlock will not connect to[\s\S]*Retrying every second/.test(screen()), `watch to say it will not connect (screen:\n${screen()})`, 30_000);
  const s = screen();
  assert.match(s, new RegExp(`Airlock will not connect to ${sockets.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/ui\\.sock`));
  assert.match(s, new RegExp(`belongs to uid ${NOBODY}, not to you`));
  assert.match(s, /XDG_RUNTIME_DIR.*AIRLOCK_HOME/);
  assert.match(s, /Retrying every second/);
  // It keeps retrying (a few rounds) and never connects to the fake, nor says it is connected.
  await new Promise((r) => setTimeout(r, 3500));
  assert.equal(connections, 0, 'watch connected to the planted socket');
  assert.match(screen(), /Airlock will not connect to/);
  assert.doesNotMatch(screen(), /connected to Airlock/);
});
