// Holes earlier waves left (leftovers, stop 27): commands the classifier mislabelled, wrappers
// whose real command was not judged, and suggested grants that allowed every use of a runner
// (`{X,X *}`). Each case is the line an agent sends; what it must come out as; and, for the
// suggestion, what the offered pattern must and must not cover.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CoreRequest } from '../../main/core/request';
import { classifyShell } from '../../main/core/classify/shell';
import { suggest } from '../../main/core/suggest';
import { assessRisk } from '../../main/core/risk';
import { globMatches } from '../../main/core/glob';

const CWD = '/repo';
const c = (cmd: string) => classifyShell(cmd, CWD);

function bash(command: string): CoreRequest {
  const k = c(command);
  return { source: 'claude-code', tool: 'Bash', action: k.action, resource: k.resources[0] ?? null, resources: k.resources, summary: command, argsText: null, args: { command }, task: 't', cwd: CWD, parts: k.parts, classifierRisk: k.riskReasons };
}
const suggested = (command: string) => {
  const r = bash(command);
  return suggest(r, assessRisk(r, {}), CWD)?.resource ?? null;
};

test('mislabels: openssl reads are reads, -out a write of that file, and every file it reads is listed', () => {
  assert.equal(c('openssl x509 -in cert.pem -noout -text').action, 'read');
  assert.deepEqual(c('openssl x509 -in cert.pem -noout -text').resources, ['/repo/cert.pem']);
  assert.equal(c('openssl sha256 a b').action, 'read');
  assert.deepEqual(c('openssl sha256 a b').resources, ['/repo/a', '/repo/b']);
  const dgst = c('openssl dgst -sha256 -out digest.txt ~/.ssh/id_rsa');
  assert.equal(dgst.action, 'write');
  assert.ok(dgst.resources.includes('/repo/digest.txt') && dgst.resources.includes('~/.ssh/id_rsa'), JSON.stringify(dgst.resources));
  // -CAcreateserial writes a serial file it does not name: not a read.
  assert.notEqual(c('openssl x509 -req -in r.csr -CA ca.pem -CAkey ca.key -CAcreateserial').action, 'read');
  assert.equal(c('openssl s_client -connect h.example:443').action, 'transfer');
});

test('mislabels: tar -c lists what it archives; to standard output it is a read; --remove-files deletes', () => {
  const keys = c('tar czf out.tgz ~/.ssh');
  assert.equal(keys.action, 'write');
  assert.ok(keys.resources.includes('~/.ssh'), `the archived directory is listed: ${JSON.stringify(keys.resources)}`);
  assert.ok(c('tar -czf out.tgz -C / etc/shadow').resources.includes('/etc/shadow'));
  assert.equal(c('tar czf - src').action, 'read');
  assert.deepEqual(c('tar czf - src').resources, ['/repo/src']);
  assert.deepEqual(c('tar -czf - -C sub a').resources, ['/repo/sub/a']);
  assert.equal(c('tar czf - --remove-files src').action, 'delete');
  assert.ok(c('tar -c -T list -f out.tar').parts[0]!.unlisted, 'tar -T: the archived files are not on the line');
});

test('mislabels: touch -r with a glob touches the glob’s other files; chmod -- is no mode', () => {
  assert.deepEqual(c('touch -r *.txt').resources, ['/repo/*.txt']);
  assert.deepEqual(c('touch -r ref file').resources, ['/repo/file']);
  assert.deepEqual(c('chmod -- 777 f').resources, ['/repo/f']);
  assert.deepEqual(c('chmod 644 -- -f').resources, ['/repo/-f']);
});

test('wrappers: chroot and sudo -R judge the command under the new root', () => {
  assert.deepEqual(c('chroot /srv/jail rm -rf y').resources, ['/srv/jail/y']);
  assert.deepEqual(c('chroot /other rm /repo/a').resources, ['/other/repo/a']);
  assert.deepEqual(c('sudo -R /srv/jail rm x').resources, ['/srv/jail/x']);
  assert.ok(c('chroot "$R" rm a').parts.some((p) => p.unlisted), 'a root known only at run time places nothing');
  assert.equal(suggested('chroot /srv/jail rm -rf y'), null);
});

test('wrappers: each judges the real command (su -c forms, sudo -s, nohup, env -S, stdbuf, ionice, nice, timeout, setsid, flock, unshare, doas)', () => {
  for (const line of [
    "su --command='rm x'", "su -c'rm x'", "su -lc 'rm x'", "su - bob -c 'rm x'", 'sudo -s rm x', 'sudo -u bob rm x', 'doas -u bob rm x',
    'nohup rm x', "env -S 'rm x'", 'stdbuf -oL rm x', 'ionice -c3 rm x', 'nice -n 5 rm x', 'timeout -s KILL 5 rm x', 'setsid -w rm x',
    'flock f rm x', 'flock -w 3 f rm x', 'unshare -r rm x', 'chroot / rm /repo/x',
    'setpriv --reuid=1 rm x', 'prlimit --nofile=10 rm x', 'cpulimit -l 50 rm x', 'aa-exec -p prof rm x', 'sshpass -p pw rm x',
    'valgrind --tool=memcheck rm x', 'setarch x86_64 -R rm x', 'runcon -t t rm x', 'asdf exec rm x', 'pyenv exec rm x',
    'mise exec python@3 -- rm x', "mise x -c 'rm x'", '~/.asdf/shims/rm x',
  ]) {
    const k = c(line);
    assert.notEqual(k.action, 'read', line);
    assert.ok(k.resources.includes('/repo/x'), `${line}: the command's file is judged (${JSON.stringify(k.resources)})`);
  }
  // `su bob` runs bob's shell; bob is no program.
  assert.ok(!c('su bob').resources.includes('/repo/bob'));
  assert.ok(!c('su bob').resources.includes('bob'));
  assert.ok(c('su - bob x.sh').resources.includes('/repo/x.sh'));
});

test('suggestions: an unknown program or wrapper is never offered as {X,X *}', () => {
  for (const [line, expect, notCover] of [
    ['aa-exec -p prof rm -rf build', '{aa-exec -p prof rm,aa-exec -p prof rm *}', 'aa-exec -p prof sh -c x'],
    ['cpulimit -l 50 make build', '{cpulimit -l 50 make build,cpulimit -l 50 make build *}', 'cpulimit -l 50 sh -c x'],
    ['sshpass -p pw rsync -a src dst', '{sshpass -p pw rsync,sshpass -p pw rsync *}', 'sshpass -p pw sh -c x'],
    ['valgrind ./a.out', null, 'valgrind sh -c x'],
    ['frobnicate --all', null, 'frobnicate sh'],
    ['frobnicate build', '{frobnicate build,frobnicate build *}', 'frobnicate sh -c x'],
    // python keeps its script, as `python x.py` does.
    ['asdf exec python x.py', '{asdf exec python x.py,asdf exec python x.py *}', 'asdf exec sh -c x'],
    ['mise exec node@20 -- rm -rf build', '{mise exec node@20 -- rm,mise exec node@20 -- rm *}', 'mise exec node@20 -- sh -c x'],
  ] as const) {
    const s = suggested(line);
    assert.equal(s, expect, line);
    if (s) assert.ok(!globMatches(s, notCover), `${s} must not cover ${notCover}`);
  }
});

test('suggestions: runners keep what they run (xargs, parallel)', () => {
  // xargs gives the program words from its input: nothing but the exact line.
  assert.equal(suggested('xargs rm'), null);
  assert.ok(c('find . -name "*.o" | xargs rm').parts.some((p) => p.unlisted));
  // parallel's command line runs through a shell for each argument: that is what is judged.
  const p = c('parallel rm ::: a b');
  assert.ok(p.resources.includes('/repo/a') && p.resources.includes('/repo/b'), JSON.stringify(p.resources));
  assert.ok(c("parallel 'echo {} > out' ::: a").resources.includes('/repo/out'));
  assert.ok(!suggested('parallel gzip ::: a b')?.includes('parallel *'));
  assert.equal(c('parallel --foo rm ::: a').action, 'execute');
});

test('suggestions: make and cmake keep what they build where, and their other build files are resources', () => {
  assert.equal(suggested('make -C sub test'), '{make -C sub test,make -C sub test *}');
  assert.equal(suggested('cmake --build build'), '{cmake --build build,cmake --build build *}');
  assert.ok(c('make -C /tmp/x').resources.includes('/tmp/x'), 'another directory is a resource (a command grant covers only the task directory)');
  assert.ok(c('make -f ~/evil.mk').resources.includes('~/evil.mk'));
  assert.ok(c('make SHELL=./x build').parts[0]!.unlisted, 'SHELL= changes every recipe');
  assert.ok(c('make --eval=x build').parts[0]!.unlisted);
  assert.equal(c('cmake -E rm -rf x').action, 'delete');
  assert.deepEqual(c('cmake -E rm -rf x').resources, ['/repo/x']);
  assert.ok(c('cmake -E env FOO=1 sh -c x').parts[0]!.unlisted, 'cmake -E env runs a command');
  assert.ok(c('cmake --build build -- -f /tmp/x.mk').parts[0]!.unlisted, 'words passed to the native tool');
  assert.ok(c('cmake -S . -B build -DCMAKE_MAKE_PROGRAM=/tmp/x').parts[0]!.unlisted);
  assert.equal(c('make --version').action, 'read');
});
