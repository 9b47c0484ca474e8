// The command-wrapper recipe run exactly as an assistant runs it: the template with
// {command} replaced by plain string substitution, then `/bin/sh -c` (and bash -c).
// Every command must run through `airlock exec` verbatim (same output as running it
// directly, recorded by the daemon as sent), and none can escape approval.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, REPO, startDaemon, type Daemon } from '../helpers/daemon';
import { run } from '../helpers/run';
import { WRAPPER_COMMANDS } from '../helpers/wrapper-commands';
import { applyTemplate, commandWrapperTemplate, WRAPPER_DELIMITER } from '../../main/integrations/exec/wrapper';
import { execFileSync } from 'node:child_process';
import type { RpcClient } from '../../main/client/rpc-client';
import type { HistoryEvent } from '../../main/contract/approver';
import { shQuote } from '../../main/integrations/exec/exec';

let d: Daemon;
let ui: RpcClient;
let work: string;
// `airlock` here is node + the compiled CLI; the recipe in the docs says `airlock`. The
// template is the one `airlock hook command-wrapper` prints, as a user would copy it.
const airlockHere = `${shQuote(process.execPath)} ${shQuote(CLI)}`;
const template = execFileSync(process.execPath, [CLI, 'hook', 'command-wrapper', '--airlock', airlockHere], { encoding: 'utf8' }).replace(/\n$/, '');

test('airlock hook command-wrapper prints the documented template (and the --args variant)', () => {
  assert.equal(template, commandWrapperTemplate(airlockHere));
  const plain = execFileSync(process.execPath, [CLI, 'hook', 'command-wrapper'], { encoding: 'utf8' });
  const doc = fs.readFileSync(path.join(REPO, 'docs/command-wrapper.md'), 'utf8');
  assert.ok(doc.includes(plain.trim()), 'docs/command-wrapper.md shows exactly what the command prints');
  const sandboxed = execFileSync(process.execPath, [CLI, 'hook', 'command-wrapper', '--args', '--sandbox'], { encoding: 'utf8' });
  assert.match(sandboxed, /^exec airlock exec --sandbox --stdin-command <<'AIRLOCK_COMMAND_7f3a9c'\n\{command\}\nAIRLOCK_COMMAND_7f3a9c\n$/);
});

before(async () => {
  d = await startDaemon();
  ui = await d.ui();
  // Allow everything, so the test shows what runs, not what is asked.
  await ui.call('settings.set', { policy: { write: 'allow', delete: 'allow', transfer: 'allow', execute: 'allow', other: 'allow' } });
  work = fs.mkdtempSync(path.join(d.home, 'w-'));
});
after(async () => {
  ui?.close();
  await d?.stop();
});

async function lastEvent(): Promise<HistoryEvent> {
  const { events } = await ui.call<{ events: HistoryEvent[] }>('history.query', { source: 'exec', limit: 1 });
  return events[0]!;
}

for (const shell of ['/bin/sh', '/bin/bash']) {
  describe(`command wrapper through ${shell} -c`, { skip: !fs.existsSync(shell) && `${shell} missing` }, () => {
    for (const cmd of WRAPPER_COMMANDS) {
      test(JSON.stringify(cmd).slice(0, 70), async () => {
        // airlock runs the command with /bin/sh -c, whatever the outer shell is.
        const direct = await run('/bin/sh', ['-c', cmd], { cwd: work, env: d.env });
        const wrapped = await run(shell, ['-c', applyTemplate(template, cmd, work)], { cwd: work, env: d.env });
        assert.equal(wrapped.stderr, direct.stderr);
        assert.equal(wrapped.stdout, direct.stdout);
        assert.equal(wrapped.code, direct.code);
        const ev = await lastEvent();
        assert.equal((ev.args as { command: string }).command, cmd, 'the daemon saw the command verbatim');
      });
    }

    test('the delimiter on its own line cannot smuggle a second command past approval', async () => {
      const marker = path.join(work, `pwned-${path.basename(shell)}`);
      const cmd = `echo before\n${WRAPPER_DELIMITER}\ntouch ${marker}\necho after`;
      const wrapped = await run(shell, ['-c', applyTemplate(template, cmd, work)], { cwd: work, env: d.env });
      assert.equal(wrapped.stdout, 'before\n');
      assert.equal(fs.existsSync(marker), false, 'the outer shell ran text after the delimiter');
      const ev = await lastEvent();
      assert.equal((ev.args as { command: string }).command, 'echo before', 'what ran is exactly what was approved');
    });

    test('quote-breaking attempts stay inside the command', async () => {
      const marker = path.join(work, `quote-${path.basename(shell)}`);
      for (const cmd of [`'; touch ${marker}; '`, `"; touch ${marker}; "`, `$(touch ${marker}`, `\`touch ${marker}`]) {
        await run(shell, ['-c', applyTemplate(template, cmd, work)], { cwd: work, env: d.env });
        const ev = await lastEvent();
        assert.equal((ev.args as { command: string }).command, cmd);
      }
      // Each was a syntax error for the inner shell: nothing ran.
      assert.equal(fs.existsSync(marker), false);
    });
  });
}

describe('command wrapper with a denial', () => {
  test('a denied command does not run and the assistant sees exit 126', async () => {
    await ui.call('settings.set', { policy: { write: 'deny' } });
    try {
      const marker = path.join(work, 'denied');
      const r = await run('/bin/sh', ['-c', applyTemplate(template, `touch ${marker}`, work)], { cwd: work, env: d.env });
      assert.equal(r.code, 126);
      assert.match(r.stderr, /^airlock: denied/);
      assert.equal(fs.existsSync(marker), false);
    } finally {
      await ui.call('settings.set', { policy: { write: 'allow' } });
    }
  });
});
