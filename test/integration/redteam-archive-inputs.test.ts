// What `tar -c` archives is read (leftovers, stop 27). `tar czf out.tgz ~/.ssh` was judged a
// write of out.tgz alone: under a task's grant to write in its own directory it ran without a
// prompt and copied the keys into the project, where any later read or upload of out.tgz was a
// plain project file. Now the archived files are the command's resources too: the secret makes
// it asked. And `tar czf - src` (to standard output) was a write of a file named "-", asked each
// time; it is a read now, run without a prompt. Run for real through `airlock exec --task --shell`.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { startDaemon, tempHome, type Daemon } from '../helpers/daemon';
import { Wire } from '../helpers/blackbox';
import { execInTask } from '../helpers/exec-in-task';

let d: Daemon;
let ui: Wire;
let home: string;
let work: string;

before(async () => {
  home = fs.realpathSync(tempHome('al-tarin-'));
  fs.mkdirSync(path.join(home, '.ssh'), { mode: 0o700 });
  fs.writeFileSync(path.join(home, '.ssh', 'id_x'), '-----BEGIN OPENSSH PRIVATE KEY-----\nnot-a-real-key\n', { mode: 0o600 });
  work = path.join(home, 'work');
  fs.mkdirSync(path.join(work, 'src'), { recursive: true });
  fs.writeFileSync(path.join(work, 'src', 'a.ts'), 'export const a = 1;\n');
  d = await startDaemon();
  ui = await Wire.open(d.uiSock);
});
after(async () => {
  ui?.close();
  await d?.stop();
});

/** Runs `line` in a task allowed to write in its own directory; denies a prompt if one comes. */
const inTask = (line: string) => execInTask(d, ui, { line, cwd: work, home, name: `tar ${line}`, grants: [{ action: 'write', resource: `${work}/**` }] });

test('tar czf out.tgz HOME/.ssh under a grant to write the task directory is asked, and nothing is archived when denied', async () => {
  const line = `tar czf out.tgz ${home}/.ssh`;
  const { asked } = await inTask(line);
  assert.ok(asked, 'the keys were archived into the project without a prompt');
  assert.ok(asked.reasons.some((r) => /\.ssh/.test(r)), `the prompt names the secret: ${JSON.stringify(asked.reasons)}`);
  assert.ok(!fs.existsSync(path.join(work, 'out.tgz')), 'denied: no archive');
});

test('tar czf - src (to standard output) is a read: it runs without a prompt', async () => {
  const { run, asked } = await inTask('tar czf - src | wc -c');
  assert.equal(asked, null, 'asked for a read');
  assert.equal(run.code, 0, run.stderr);
  assert.ok(Number(run.stdout.trim()) > 0, `the archive went to standard output: ${run.stdout}`);
});

test('zip -@ < list (names on standard input) under a grant to write the task directory is asked, and nothing is archived when denied', async () => {
  // The list is a plain project file the agent wrote earlier; the archive holds what it names.
  fs.writeFileSync(path.join(work, 'list'), `${home}/.ssh/id_x\n`);
  for (const line of ['zip -q k.zip -@ < list', 'zip -q k2.zip --names-stdin < list']) {
    const { asked } = await inTask(line);
    assert.ok(asked, `${line}: the keys were archived into the project without a prompt`);
    assert.ok(!fs.existsSync(path.join(work, line.includes('k2') ? 'k2.zip' : 'k.zip')), `${line}: denied, yet an archive was made`);
  }
  // Control: named on the command line, a project file archives without a prompt.
  const { run, asked } = await inTask('zip -q k3.zip src/a.ts');
  assert.equal(asked, null, 'a project file named on the line was asked');
  assert.equal(run.code, 0, run.stderr);
  assert.ok(fs.existsSync(path.join(work, 'k3.zip')));
});
