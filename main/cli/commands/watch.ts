// `airlock watch`: the terminal approver for machines without a desktop. Pending
// prompts appear live with their countdown; one key answers each.
import type { Command } from 'commander';
import type { Prompt } from '../../contract/approver';
import { describeTree } from '../../os/peer';
import { connectUi } from '../util';

const KEYS: Record<string, { decision: 'allow' | 'deny'; scope: 'once' | 'task' | 'duration' | 'always'; label: string; durationSec?: number }> = {
  d: { decision: 'deny', scope: 'once', label: 'denied' },
  o: { decision: 'allow', scope: 'once', label: 'allowed once' },
  t: { decision: 'allow', scope: 'task', label: 'allowed for this task' },
  m: { decision: 'allow', scope: 'duration', durationSec: 15 * 60, label: 'allowed for 15 minutes' },
  a: { decision: 'allow', scope: 'always', label: 'allowed always' },
};
/** Keystrokes within this long of a prompt appearing are ignored (meant for another window). */
const GUARD_MS = 500;

export function registerWatch(program: Command): void {
  program
    .command('watch')
    .description('answer prompts in this terminal: [d]eny [o]nce [t]ask 15 [m]inutes [a]lways, ↑/↓ or j/k to pick, q to quit')
    .action(async () => {
      const c = await connectUi();
      const prompts = new Map<string, Prompt>();
      const shownAt = new Map<string, number>();
      let selected = 0;
      let status = 'waiting for requests…';
      const tty = process.stdout.isTTY;

      const list = () => [...prompts.values()].sort((a, b) => a.createdAt - b.createdAt);
      const render = () => {
        const ps = list();
        if (selected >= ps.length) selected = Math.max(0, ps.length - 1);
        const out: string[] = [];
        out.push(`Airlock — ${ps.length} pending   [d]eny [o]nce [t]ask [m] 15 min [a]lways   ↑↓ pick   q quit`);
        out.push('');
        ps.forEach((p, i) => {
          const left = Math.max(0, Math.ceil((p.expiresAt - Date.now()) / 1000));
          const mark = i === selected ? '>' : ' ';
          out.push(`${mark} [${p.risk.level.toUpperCase()}] ${p.action} · ${p.tool} · denies in ${left}s`);
          out.push(`    ${p.summary}`);
          if (p.resource) out.push(`    resource: ${p.resources.slice(0, 4).join(', ')}${p.resources.length > 4 ? ` (+${p.resources.length - 4})` : ''}`);
          if (p.ssh) {
            const where = p.ssh.purpose === 'login' ? `login ${p.ssh.user ?? '?'}@${p.ssh.host ?? p.ssh.hostKey ?? '?'}` : p.ssh.purpose === 'sshsig' ? `sign, namespace ${p.ssh.namespace}` : 'unknown data';
            out.push(`    ssh: ${where} · key ${p.ssh.keyName ?? ''} ${p.ssh.fingerprint}${p.ssh.forwarded ? ' · FORWARDED' : ''}`);
          }
          out.push(`    task: ${p.taskName ?? p.task ?? 'none'}${p.process ? ` · who: ${describeTree(p.process)} (pid ${p.process.pid})` : ''}`);
          if (p.risk.reasons.length) out.push(`    why: ${p.risk.reasons.join('; ')}`);
          if (p.nearMiss) out.push(`    asked because: ${p.nearMiss}`);
          out.push('');
        });
        if (ps.length === 0) out.push('  no pending prompts');
        out.push('');
        out.push(status);
        if (tty) process.stdout.write('\x1b[2J\x1b[H' + out.join('\n') + '\n');
        else process.stdout.write(out.join('\n') + '\n');
      };

      c.onNotification = (method, params) => {
        if (method === 'pending.added') {
          const p = params as Prompt;
          prompts.set(p.id, p);
          shownAt.set(p.id, Date.now());
          render();
        } else if (method === 'pending.resolved') {
          const r = params as { id: string; reason: string };
          if (prompts.delete(r.id)) {
            status = `resolved: ${r.reason}`;
            render();
          }
        }
      };
      c.onClose = () => {
        process.stdout.write('\nairlock: the daemon went away\n');
        process.exit(69);
      };
      await c.call('subscribe');
      const { prompts: initial } = await c.call<{ prompts: Prompt[] }>('pending.list');
      for (const p of initial) {
        prompts.set(p.id, p);
        shownAt.set(p.id, Date.now());
      }
      render();
      const ticker = setInterval(render, 1000);

      const decide = async (key: string) => {
        const choice = KEYS[key];
        const p = list()[selected];
        if (!choice || !p) return;
        if (Date.now() - (shownAt.get(p.id) ?? 0) < GUARD_MS) {
          status = `ignored "${key}": the prompt appeared less than ${GUARD_MS} ms ago`;
          return render();
        }
        if (choice.scope === 'task' && !p.task) {
          status = 'this request belongs to no task: use [o]nce, [m]inutes or [a]lways';
          return render();
        }
        try {
          await c.call('pending.decide', { id: p.id, decision: choice.decision, scope: choice.scope, ...(choice.durationSec ? { durationSec: choice.durationSec } : {}) });
          prompts.delete(p.id);
          status = `${choice.label}: ${p.summary}`;
        } catch (e) {
          status = `error: ${(e as Error).message}`;
        }
        render();
      };

      if (process.stdin.isTTY) process.stdin.setRawMode(true);
      process.stdin.setEncoding('utf8');
      process.stdin.on('data', (s: string) => {
        if (s === 'q' || s === '\u0003') {
          clearInterval(ticker);
          c.close();
          process.exit(0);
        }
        if (s === '\u001b[A' || s === 'k') selected = Math.max(0, selected - 1);
        else if (s === '\u001b[B' || s === 'j') selected = Math.min(prompts.size - 1, selected + 1);
        else if (s === '\u001b') return void decide('d');
        else if (s.length === 1 && KEYS[s]) return void decide(s);
        render();
      });
    });
}
