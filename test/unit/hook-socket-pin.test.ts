// Which sockets the installed Claude Code hook accepts once its command line pins Airlock's
// directory (main/integrations/claude-code/socket-pin.ts). Real directories and links; the
// end-to-end run with a real daemon and a fake one is in test/integration/hook-claude-code.test.ts.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { daemonNotRunning, hookRequestSocket, pinnedSocketProblem } from '../../main/integrations/claude-code/socket-pin';
import { hookCommand } from '../../main/integrations/claude-code/install';
import { sessionFile } from '../../main/integrations/claude-code/hook-service';

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'al-pin-')));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const dir = path.join(root, 'airlock');
const tasks = path.join(dir, 'tasks');
fs.mkdirSync(path.join(tasks, 't_AbCdEf012345'), { recursive: true });
const elsewhere = path.join(root, 'elsewhere');
fs.mkdirSync(path.join(elsewhere, 'airlock'), { recursive: true });
const linkToDir = path.join(root, 'link-to-airlock');
fs.symlinkSync(dir, linkToDir);
fs.symlinkSync(elsewhere, path.join(tasks, 't_outwardlink'));

const pinned = (extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({ AIRLOCK_HOOK_HOME: dir, AIRLOCK_HOME: dir, ...extra });

describe('hook socket pin', () => {
  test('without AIRLOCK_HOOK_HOME nothing is checked (the hook run by hand, old installs, --unpinned)', () => {
    assert.equal(pinnedSocketProblem({ AIRLOCK_REQUEST_SOCK: path.join(elsewhere, 'request.sock') }), null);
  });

  test("accepted: the directory's request.sock, a task's, the same directory through a link of ours", () => {
    for (const env of [
      pinned({}),
      pinned({ AIRLOCK_REQUEST_SOCK: path.join(dir, 'request.sock') }),
      pinned({ AIRLOCK_REQUEST_SOCK: path.join(tasks, 't_AbCdEf012345', 'request.sock') }),
      // A task socket not made yet: connect() will say ENOENT, nothing to steer.
      pinned({ AIRLOCK_REQUEST_SOCK: path.join(tasks, 't_notyetthere', 'request.sock') }),
      pinned({ AIRLOCK_HOME: linkToDir }),
      // Inside `task start --sandbox`: AIRLOCK_HOME unset, the task's socket explicit.
      { AIRLOCK_HOOK_HOME: dir, AIRLOCK_REQUEST_SOCK: path.join(tasks, 't_AbCdEf012345', 'request.sock'), XDG_RUNTIME_DIR: elsewhere },
      { AIRLOCK_HOOK_HOME: dir, XDG_RUNTIME_DIR: root },
      // Neither AIRLOCK_HOME nor AIRLOCK_REQUEST_SOCK: the pinned directory's socket, whatever
      // XDG_RUNTIME_DIR or TMPDIR say (they play no part under a pin).
      { AIRLOCK_HOOK_HOME: dir, AIRLOCK_HOME: '', XDG_RUNTIME_DIR: elsewhere },
      { AIRLOCK_HOOK_HOME: dir, XDG_RUNTIME_DIR: path.join(root, 'missing') },
      { AIRLOCK_HOOK_HOME: dir, TMPDIR: elsewhere },
      { AIRLOCK_HOOK_HOME: dir, AIRLOCK_REQUEST_SOCK: '', AIRLOCK_HOME: '', XDG_RUNTIME_DIR: elsewhere },
    ]) {
      assert.equal(pinnedSocketProblem(env), null, JSON.stringify(env));
    }
  });

  test('refused, each naming the variable and what to do', () => {
    const cases: [NodeJS.ProcessEnv, string][] = [
      [pinned({ AIRLOCK_REQUEST_SOCK: path.join(elsewhere, 'request.sock') }), 'AIRLOCK_REQUEST_SOCK'],
      [pinned({ AIRLOCK_HOME: elsewhere }), 'AIRLOCK_HOME'],
      // Other sockets of the directory, deeper or odd names under tasks/, links leading out, `..`.
      [pinned({ AIRLOCK_REQUEST_SOCK: path.join(dir, 'ui.sock') }), 'AIRLOCK_REQUEST_SOCK'],
      [pinned({ AIRLOCK_REQUEST_SOCK: path.join(tasks, 't_AbCdEf012345', 'agent.sock') }), 'AIRLOCK_REQUEST_SOCK'],
      [pinned({ AIRLOCK_REQUEST_SOCK: path.join(tasks, 't_AbCdEf012345', 'x', 'request.sock') }), 'AIRLOCK_REQUEST_SOCK'],
      [pinned({ AIRLOCK_REQUEST_SOCK: path.join(tasks, 'request.sock') }), 'AIRLOCK_REQUEST_SOCK'],
      [pinned({ AIRLOCK_REQUEST_SOCK: path.join(tasks, 't_outwardlink', 'request.sock') }), 'AIRLOCK_REQUEST_SOCK'],
      [pinned({ AIRLOCK_REQUEST_SOCK: `${tasks}/t_AbCdEf012345/../t_AbCdEf012345/request.sock` }), 'AIRLOCK_REQUEST_SOCK'],
      [pinned({ AIRLOCK_REQUEST_SOCK: `${dir}/./request.sock` }), 'AIRLOCK_REQUEST_SOCK'],
      [pinned({ AIRLOCK_HOME: `${dir}/tasks/..` }), 'AIRLOCK_HOME'],
      [pinned({ AIRLOCK_REQUEST_SOCK: 'request.sock' }), 'AIRLOCK_REQUEST_SOCK'],
    ];
    for (const [env, name] of cases) {
      const why = pinnedSocketProblem(env);
      assert.ok(why, `not refused: ${JSON.stringify(env)}`);
      assert.match(why, new RegExp(`^${name} points outside Airlock's directory `), why);
      assert.match(why, /re-run `airlock hook claude-code --install`/);
    }
    assert.match(pinnedSocketProblem({ AIRLOCK_HOOK_HOME: 'relative/dir' }) ?? '', /AIRLOCK_HOOK_HOME .* not an absolute path/);
  });

  test('under a pin with neither AIRLOCK_REQUEST_SOCK nor AIRLOCK_HOME the hook looks in the pinned directory, as a daemon run with AIRLOCK_HOME=<pin> listens there; otherwise where every client looks', () => {
    const want = path.join(dir, 'request.sock');
    for (const env of [
      { AIRLOCK_HOOK_HOME: dir },
      { AIRLOCK_HOOK_HOME: `${dir}/` },
      { AIRLOCK_HOOK_HOME: dir, AIRLOCK_HOME: '', AIRLOCK_REQUEST_SOCK: '' },
      { AIRLOCK_HOOK_HOME: dir, XDG_RUNTIME_DIR: elsewhere, TMPDIR: elsewhere },
    ] as NodeJS.ProcessEnv[]) {
      assert.equal(hookRequestSocket(env), want, JSON.stringify(env));
      assert.equal(daemonNotRunning(env), `the Airlock daemon is not running (nothing answers at ${want}, where the hook was installed to find it; if the daemon now runs with another AIRLOCK_HOME, re-run \`airlock hook claude-code --install\` with that AIRLOCK_HOME exported)`);
    }
    // An explicit variable is still the socket (and still checked against the pin).
    assert.equal(hookRequestSocket({ AIRLOCK_HOOK_HOME: dir, AIRLOCK_HOME: elsewhere }), path.join(elsewhere, 'request.sock'));
    assert.equal(hookRequestSocket({ AIRLOCK_HOOK_HOME: dir, AIRLOCK_REQUEST_SOCK: '/x/r.sock' }), '/x/r.sock');
    // No pin, or one that is refused anyway: where every client looks; the plain words.
    assert.equal(hookRequestSocket({ XDG_RUNTIME_DIR: elsewhere }), path.join(elsewhere, 'airlock', 'request.sock'));
    assert.equal(hookRequestSocket({ AIRLOCK_HOOK_HOME: 'relative', XDG_RUNTIME_DIR: elsewhere }), path.join(elsewhere, 'airlock', 'request.sock'));
    assert.equal(hookRequestSocket({ AIRLOCK_HOOK_HOME: `${dir}/../elsewhere`, XDG_RUNTIME_DIR: elsewhere }), path.join(elsewhere, 'airlock', 'request.sock'));
    assert.equal(daemonNotRunning({ XDG_RUNTIME_DIR: elsewhere }), 'the Airlock daemon is not running');
  });

  test("red team: the pinned directory's request.sock replaced by a link leading out is refused, never followed", () => {
    const linked = path.join(root, 'linked-pin');
    fs.mkdirSync(linked);
    fs.writeFileSync(path.join(elsewhere, 'request.sock'), ''); // what the link leads to (a planted "socket")
    fs.symlinkSync(path.join(elsewhere, 'request.sock'), path.join(linked, 'request.sock'));
    for (const env of [{ AIRLOCK_HOOK_HOME: linked }, { AIRLOCK_HOOK_HOME: linked, XDG_RUNTIME_DIR: elsewhere }] as NodeJS.ProcessEnv[]) {
      const why = pinnedSocketProblem(env) ?? '';
      assert.match(why, /request\.sock leads outside Airlock's directory .*something replaced the daemon's socket with a link/, why);
      assert.match(why, /re-run `airlock hook claude-code --install`/);
    }
    // Control: a pin that is itself a link of ours to the directory names the same socket.
    assert.equal(pinnedSocketProblem({ AIRLOCK_HOOK_HOME: linkToDir, XDG_RUNTIME_DIR: elsewhere }), null);
  });

  test("session → task files are the daemon's, in the folder it names, whatever the session id (hostile input) says", () => {
    // The daemon keeps them now (hook-service.ts), beside the socket the call came through; the
    // session id comes from the hook's stdin and must never name a path outside that folder.
    const sessions = path.join(dir, 'claude-code');
    for (const sid of ['s1', '../../elsewhere/x', '/etc/passwd', '..', '', 'a/../../b', 'x'.repeat(500)]) {
      const f = sessionFile(sessions, sid);
      assert.equal(path.dirname(f), sessions, sid);
      assert.match(path.basename(f), /^[A-Za-z0-9_.-]{1,128}\.task$/, sid);
    }
  });

  test('hookCommand pins the real path of the runtime directory; --unpinned does not, and clears an inherited pin', () => {
    const cmd = hookCommand({ env: { AIRLOCK_HOME: linkToDir } });
    assert.match(cmd, /^unset NODE_OPTIONS NODE_COMPILE_CACHE AIRLOCK_HOOK_REPLY_TIMEOUT_MS AIRLOCK_HOOK_HOME; export AIRLOCK_HOOK_HOME='([^']+)'; \[ -x '[^']+' \] \|\| \{ printf '%s\\n' '.*'; exit 0; \}; exec '/);
    assert.equal(/AIRLOCK_HOOK_HOME='([^']+)'/.exec(cmd)?.[1], dir);
    const loose = hookCommand({ env: { AIRLOCK_HOME: dir }, pinned: false });
    assert.doesNotMatch(loose, /export AIRLOCK_HOOK_HOME/);
    assert.match(loose, /^unset NODE_OPTIONS NODE_COMPILE_CACHE AIRLOCK_HOOK_REPLY_TIMEOUT_MS AIRLOCK_HOOK_HOME; \[ -x '[^']+' \] \|\| \{ printf '%s\\n' '.*'; exit 0; \}; exec '/);
  });
});
