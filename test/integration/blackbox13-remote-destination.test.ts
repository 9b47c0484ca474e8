// Black-box, wave 13: the ssh line `airlock remote add NAME DESTINATION` prints is pasted
// into a shell as it is, so it must mean what it says whatever DESTINATION holds. A
// destination ssh would read as an option (`-oProxyCommand=…` runs a command on this
// machine, `-J host` goes through another one), or one holding blanks, controls, bidi
// characters or shell metacharacters, is refused (exit 64) and no remote is made; an
// accepted one reaches ssh as exactly the one destination argument. The printed line is run
// with /bin/sh against a stand-in `ssh` first on PATH that only writes down its arguments.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { airlock, closeBlackboxSession, openBlackboxSession, type BlackboxSession } from '../helpers/blackbox';
import { run } from '../helpers/ssh';

let s: BlackboxSession;
let fakeBin = '';
let argsFile = '';
let witness = '';

before(async () => {
  s = await openBlackboxSession('bb13d-');
  fakeBin = path.join(s.root, 'bin');
  fs.mkdirSync(fakeBin);
  argsFile = path.join(s.root, 'ssh-args');
  witness = path.join(s.root, 'ran');
  // Stands in for ssh: one argument per line (NUL-free), nothing else.
  fs.writeFileSync(path.join(fakeBin, 'ssh'), `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > ${argsFile}\n`, { mode: 0o755 });
});
after(async () => closeBlackboxSession(s));

const env = () => ({ ...process.env, AIRLOCK_HOME: s.d.home });

async function remoteNames(): Promise<string[]> {
  const r = await airlock(['remote', 'list', '--json'], { env: env() });
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { name: string }[]).map((x) => x.name);
}

/** The printed line, run by /bin/sh with the stand-in ssh: the arguments ssh would get. */
async function pasted(stdout: string): Promise<string[]> {
  const lines = stdout.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('ssh '));
  assert.equal(lines.length, 1, stdout);
  fs.rmSync(argsFile, { force: true });
  const r = await run('/bin/sh', ['-c', lines[0]!], { env: { ...process.env, PATH: `${fakeBin}:${process.env.PATH ?? ''}` }, cwd: s.root });
  assert.equal(r.code, 0, r.stderr);
  return fs.readFileSync(argsFile, 'utf8').split('\n').slice(0, -1);
}

test('a destination ssh would read as an option, or one with blanks, controls, bidi or shell metacharacters, is refused: no remote, no ssh line', async () => {
  const hostile = [
    `-oProxyCommand=touch ${witness}`,
    '-oProxyCommand=sh',
    '-J evil.example',
    '-p2222',
    'host; touch x',
    'me@host\nid',
    'me@host\u202e',
    'me@ho\u200bst',
    "me@host'$(id)'",
    'me@$(id)',
    'me@`id`',
    '',
  ];
  let i = 0;
  for (const dest of hostile) {
    const name = `hostile-${++i}`;
    const r = await airlock(['remote', 'add', name, '--', dest], { env: env() });
    assert.equal(r.code, 64, `${JSON.stringify(dest)}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /bad destination/, JSON.stringify(dest));
    assert.doesNotMatch(r.stdout, /\bssh /, `no ssh line is printed for ${JSON.stringify(dest)}`);
    assert.ok(!(await remoteNames()).includes(name), `no remote is made for ${JSON.stringify(dest)}`);
  }
  assert.ok(!fs.existsSync(witness));
});

test('an accepted destination reaches ssh as exactly one argument, right before the remote command', async () => {
  for (const dest of ['me@build.example.com', 'build', 'me@[::1]', 'ssh://me@build.example.com:2222', 'me.name+ci@build-1.example.com', 'pipeline@bühne.example']) {
    const r = await airlock(['remote', 'add', 'fine', dest], { env: env() });
    assert.equal(r.code, 0, `${dest}: ${r.stderr}`);
    const args = await pasted(r.stdout);
    const t = args.indexOf('-t');
    assert.ok(t > 0, args.join(' '));
    assert.deepEqual(args.slice(t + 1, t + 2), [dest], 'the destination is one argument, as given');
    assert.equal(args.length, t + 3, 'then only the remote command');
    assert.match(args[t + 2]!, /^export AIRLOCK_REQUEST_SOCK=/);
    assert.ok(!args.slice(0, t).some((a) => a.includes(dest)), 'nothing of the destination among the options');
  }
});

test('without SSH_AUTH_SOCK the printed text says to set it first (ssh drops ForwardAgent=PATH then); with it, or with --no-agent, it does not', async () => {
  const without: NodeJS.ProcessEnv = { ...env() };
  delete without.SSH_AUTH_SOCK;
  const bare = await airlock(['remote', 'add', 'noagentsock', 'me@build.example.com'], { env: without });
  assert.equal(bare.code, 0, bare.stderr);
  assert.match(bare.stdout, new RegExp(`^ {2}export SSH_AUTH_SOCK=${path.join(s.d.home, 'agent.sock').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`, 'm'));
  await pasted(bare.stdout); // still exactly one ssh line
  const set = await airlock(['remote', 'add', 'noagentsock', 'me@build.example.com'], { env: { ...without, SSH_AUTH_SOCK: path.join(s.d.home, 'agent.sock') } });
  assert.doesNotMatch(set.stdout, /SSH_AUTH_SOCK=/);
  const noAgent = await airlock(['remote', 'add', 'noagentsock', 'me@build.example.com', '--no-agent'], { env: without });
  assert.doesNotMatch(noAgent.stdout, /SSH_AUTH_SOCK=/);
});
