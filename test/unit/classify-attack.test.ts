// Red team, second round: a corpus of 800+ ways around the shell classifier and 200+
// plain reads (test/unit/classify-attack-corpus.ts), plus the ways around that this
// round found, each with the rule the prompt must name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyShell } from '../../main/core/classify/shell';
import { ATTACKS, PLAIN_READS } from './classify-attack-corpus';

const CWD = '/repo';
const c = (cmd: string) => classifyShell(cmd, CWD);
const why = (cmd: string) => c(cmd).riskReasons.map((r) => r.reason).join(' | ');

test('attack corpus: no command that deletes, writes, runs code or connects is a read', () => {
  assert.ok(ATTACKS.length >= 800);
  const silent = ATTACKS.filter((cmd) => c(cmd).action === 'read');
  assert.deepEqual(silent, [], `these would run without a prompt:\n${silent.join('\n')}`);
});

test('attack corpus: at least 93 % of plain reads stay silent reads', () => {
  const missed = PLAIN_READS.filter((cmd) => c(cmd).action !== 'read');
  const share = 1 - missed.length / PLAIN_READS.length;
  assert.ok(share >= 0.93, `only ${(share * 100).toFixed(1)} % of plain reads stay silent; prompting:\n${missed.join('\n')}`);
});

test('a glob after tar -f is several words: the ones after the archive are options (tar -tf * runs --use-compress-program)', () => {
  for (const cmd of ['tar -tf *', 'tar tf *', 'tar -tvf *.tar', 'tar -tf $x', 'tar -tf {a,--to-command=sh}']) {
    assert.notEqual(c(cmd).action, 'read', cmd);
    assert.match(why(cmd), /not known to be read-only/, cmd);
  }
  // One word stays one archive name, whatever it holds.
  for (const cmd of ['tar -tf "$x"', 'tar -tzf a.tgz', 'tar -tf ./*.tar', 'tar -tf archives/a.tar']) assert.equal(c(cmd).action, 'read', cmd);
});

test("git outside the session's directory is not a read: that repository's config names programs git runs", () => {
  for (const cmd of ['git -C /tmp/evil status', 'git -C .. log', 'git -C ../other diff', 'git -C ~ status', 'git -C "$d" status', 'cd /tmp/x && git status', 'cd .. && git log', 'cd "$d" && git status', "sh -c 'cd /tmp && git status'"]) {
    assert.equal(c(cmd).action, 'execute', cmd);
    assert.match(why(cmd), /outside the session's directory/, cmd);
  }
  for (const cmd of ['git --git-dir=/tmp/x log', 'git --git-dir=.git log', 'git --work-tree=/ status', 'git --git-dir x log']) {
    assert.equal(c(cmd).action, 'execute', cmd);
    assert.match(why(cmd), /--(git-dir|work-tree) names a repository/, cmd);
  }
  for (const cmd of ['git status', 'git -C /repo log', 'git -C . log', 'git -C sub/.. log', '(cd /tmp && ls) && git status']) assert.equal(c(cmd).action, 'read', cmd);
  // A subdirectory may itself look like a repository (bare-repository discovery):
  // see classify-attack-wave4.test.ts.
  for (const cmd of ['git -C sub log', 'git -C /repo/sub status', 'cd sub && git status']) assert.equal(c(cmd).action, 'execute', cmd);
  // Without a known session directory, any -C but `.` asks.
  assert.equal(classifyShell('git -C . log', undefined).action, 'read');
  assert.equal(classifyShell('git -C sub log', undefined).action, 'execute');
  assert.equal(classifyShell('git -C ../x log', undefined).action, 'execute');
  assert.equal(classifyShell('git -C /x log', undefined).action, 'execute');
});

test('read sets plain lower-case variables only; IFS= before read is read\'s own splitting', () => {
  for (const cmd of ['read x', 'read -r line', 'while IFS= read -r line; do echo "$line"; done < f', 'ls | while read f; do echo "$f"; done', 'read -a arr']) assert.equal(c(cmd).action, 'read', cmd);
  for (const cmd of ['read PATH', 'read IFS', 'read -a PATH', 'read http_proxy', 'read "$x"', "read 'a[$(id)]'"]) {
    assert.equal(c(cmd).action, 'execute', cmd);
    assert.match(why(cmd), /not a plain shell variable|computed at run time/, cmd);
  }
  // What read stored is judged where it is used.
  for (const cmd of ['read x; echo $((x))', 'read x; [[ $x -eq 1 ]]', 'read x; $x', 'read x; echo ${a[$x]}', 'read x; eval "$x"', 'ls | while read f; do rm "$f"; done', 'IFS=/ ls']) assert.notEqual(c(cmd).action, 'read', cmd);
});

test('version queries, socket and mount listings, archive listings are reads; their other forms are not', () => {
  for (const cmd of ['npm --version', 'java -version', 'gcc --version', 'make --version', 'ss -tlnp', 'netstat -an', 'mount', 'ip -br a', 'ip route get 1.1.1.1', 'getent passwd root', 'yes | head -3', 'zcat f.gz | head', 'unzip -l a.zip', 'gzip -l f.gz', 'gzip -t f.gz']) assert.equal(c(cmd).action, 'read', cmd);
  for (const cmd of ['make', 'make -v all', 'gcc f.c', 'java Main', 'ss -K dst 1.2.3.4', 'ss -tK', 'ss -D out', 'mount -a', 'mount /dev/x /mnt', 'ip link set eth0 down', 'ip netns exec x sh', 'ip route add 1.2.3.0/24 dev x', 'unzip -l a.zip -d /tmp', 'unzip -lo a.zip', 'gzip -ld f.gz', 'gzip f']) assert.notEqual(c(cmd).action, 'read', cmd);
});

test('a program that find -exec or xargs runs may run another: find -exec xargs rm, xargs nice rm are judged by the last one', () => {
  for (const cmd of ['find . -exec xargs rm \\;', 'find . -exec xargs cat \\;', 'ls | xargs xargs rm', 'ls | xargs nice cat', 'find . -exec timeout 5 cat {} \\;', 'find . -exec nice rm {} \\;']) {
    assert.notEqual(c(cmd).action, 'read', cmd);
  }
  assert.match(why('find . -exec xargs rm \\;'), /xargs runs rm with words from its input/);
  for (const cmd of ['find . -exec cat {} \\;', 'find . -exec grep -l x {} +', 'ls | xargs cat', 'git ls-files -z | xargs -0 wc -l']) assert.equal(c(cmd).action, 'read', cmd);
});

test('find -execdir git runs git in every directory found, under whatever config a planted repository there holds', () => {
  for (const cmd of ['find /tmp -name .git -execdir git status \\;', 'find . -execdir git log \\;', 'find / -okdir /usr/bin/git status \\;', 'find . -execdir "$G" status \\;']) {
    assert.notEqual(c(cmd).action, 'read', cmd);
  }
  assert.match(why('find /tmp -name .git -execdir git status \\;'), /-execdir runs git in every directory/);
  assert.equal(c('find . -name "*.ts" -execdir wc -l {} +').action, 'read', 'other -execdir reads stay reads');
});

test('red team, third wave: npm version X and uv version X set the version (write files, npm runs the version scripts): never reads', () => {
  for (const cmd of ['npm version patch', 'npm version 1.2.3', 'npm version major --json', 'npm version "$v"', 'uv version 1.2.3', 'uv version --bump patch']) {
    assert.equal(c(cmd).action, 'execute', cmd);
  }
  for (const cmd of ['npm version', 'npm version --json', 'uv version']) assert.equal(c(cmd).action, 'read', cmd);
});

test('red team, third wave: ${VAR:=x} and ${VAR=x} assign like VAR=x (: ${CDPATH:=/tmp}; cd x && git status ran git in /tmp/x)', () => {
  for (const cmd of [': ${CDPATH:=/tmp}; cd x && git status', 'echo ${CDPATH=/tmp} && cd evil && git status', ': ${PATH:=/tmp}', 'echo "${GIT_DIR:=/tmp/x}"; git log', ': ${LD_PRELOAD=/tmp/x.so}']) {
    assert.notEqual(c(cmd).action, 'read', cmd);
    assert.match(why(cmd), /changes how later commands run|may read from their environment/, cmd);
  }
  // A lower-case shell variable's default is local, as a plain x=1 is.
  for (const cmd of ['echo ${x:=1}', 'echo ${name:-default}', 'echo ${PATH:-/bin}']) assert.equal(c(cmd).action, 'read', cmd);
});

test('red team, seventh wave (lead): version queries through a toolchain proxy run what a workspace file names (rustc --version ran rust-toolchain.toml\'s path/bin/rustc)', () => {
  // rustup's proxies (cargo, rustc) follow rust-toolchain.toml's `path` to any directory;
  // go.mod/go.work `toolchain` lines make every go command download and run that toolchain;
  // npm help starts the viewer/browser npm's config (a workspace .npmrc too) names; yarn runs
  // the yarnPath release of .yarnrc.yml, pnpm the version packageManager names.
  for (const cmd of ['cargo --version', 'cargo -V', 'cargo version', 'cargo help', 'cargo help build', 'rustc --version', 'rustc -V', 'rustc -vV', 'go version', 'go env', 'go env GOPATH', 'go help', 'go help build', 'cargo --version | head -1', 'ls && rustc -V', 'npm help ls', 'npm help config', 'yarn --version', 'yarn why lodash', 'yarn list', 'pnpm --version', 'pnpm ls', 'pnpm why x']) {
    assert.notEqual(c(cmd).action, 'read', cmd);
  }
  // What stays a read: version queries of programs that are not proxies for a workspace file.
  for (const cmd of ['npm --version', 'npm help', 'node --version', 'python3 --version', 'gcc --version', 'java -version']) assert.equal(c(cmd).action, 'read', cmd);
});

test('red team, seventh wave (lead): a file read through an option is a resource (jq --rawfile k ~/.ssh/id_x printed a key and left no secret read)', () => {
  const rows: [string, string][] = [
    ['jq --rawfile k /home/u/.ssh/id_x -n "$k"', '/home/u/.ssh/id_x'],
    ['jq --slurpfile k /home/u/.aws/credentials -n 1', '/home/u/.aws/credentials'],
    ['jq -L /home/u/.ssh -n 1', '/home/u/.ssh'],
    ['jq --from-file p.jq /home/u/.env', '/home/u/.env'],
    ['yq . /home/u/.kube/config', '/home/u/.kube/config'],
    ['diff --from-file=/home/u/.env a', '/home/u/.env'],
    ['diff --to-file /home/u/.env a', '/home/u/.env'],
    ['locate -d /home/u/.env x', '/home/u/.env'],
    ['plocate --database=/home/u/.env x', '/home/u/.env'],
    ['journalctl --file=/home/u/.env', '/home/u/.env'],
    ['journalctl -D /home/u/.ssh', '/home/u/.ssh'],
    ['dmesg -F /home/u/.env', '/home/u/.env'],
    ['xargs -a /home/u/.env echo', '/home/u/.env'],
    ['xargs --arg-file=/home/u/.env cat', '/home/u/.env'],
    ['fd --search-path /home/u/.ssh', '/home/u/.ssh'],
    ['fd -e pem . --base-directory /home/u/.ssh', '/home/u/.ssh'],
    ['ag --path-to-ignore /home/u/.env x', '/home/u/.env'],
    ['git blame --contents /home/u/.env f', '/home/u/.env'],
    ['git diff --no-index /home/u/.ssh/id_x f', '/home/u/.ssh/id_x'],
    ['git config --file /home/u/.ssh/config --list', '/home/u/.ssh/config'],
    ['git grep --no-index x /home/u/.ssh', '/home/u/.ssh'],
  ];
  for (const [cmd, file] of rows) {
    const r = c(cmd);
    assert.equal(r.action, 'read', cmd);
    assert.ok(r.resources.includes(file), `${cmd}: ${JSON.stringify(r.resources)}`);
  }
});

test('red team, seventh wave (lead): ssh runs programs its config names (-F FILE: Match exec, ProxyCommand; -I and PKCS11Provider load a library) and a command after the host runs there', () => {
  for (const cmd of ['ssh -F ./cfg host', 'ssh -F/tmp/c host', 'ssh -vF cfg host', 'ssh -I /tmp/p.so host', 'ssh -oPKCS11Provider=/tmp/p.so host', 'ssh -o pkcs11provider=/tmp/p.so host', 'ssh -oproxycommand=x host', 'ssh -o SecurityKeyProvider=x host', 'scp -F c f host:', 'sftp -F c host', 'ssh host rm -rf /', 'ssh host', 'echo id | ssh host', 'ssh -t user@host sudo reboot']) {
    assert.equal(c(cmd).action, 'execute', cmd);
  }
  assert.ok(c('ssh host rm -rf /srv').riskReasons.some((r) => r.reason === 'runs rm -rf /srv on host'));
  // What does not reach a shell stays a transfer, and an ordinary -o is not mistaken for -S/-F.
  for (const cmd of ['ssh -N -L 8080:localhost:80 host', 'ssh -fN host', 'ssh -G host', 'ssh -O check host', 'scp -oStrictHostKeyChecking=no f host:']) {
    assert.equal(c(cmd).action, 'transfer', cmd);
  }
  // sftp is execute by itself (its `!` runs a local shell command: the GTFOBins corpus), but
  // an ordinary -o is still not taken for a program it runs.
  assert.ok(!c('sftp -oStrictHostKeyChecking=no host').riskReasons.some((r) => /caller's choosing/.test(r.reason)));
});
