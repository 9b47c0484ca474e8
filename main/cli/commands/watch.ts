// `airlock watch`: the terminal approver for machines without a desktop. Pending
// prompts appear live with their countdown; one key answers each.
import type { Command } from 'commander';
import type { Prompt } from '../../contract/approver';
import { describeTree } from '../../os/peer';
import { connectUi } from '../util';

type Choice = { decision: 'allow' | 'deny'; scope: 'once' | 'task' | 'duration' | 'always'; label: string; durationSec?: number; suggested?: boolean };
const KEYS: Record<string, Choice> = {
  d: { decision: 'deny', scope: 'once', label: 'denied' },
  o: { decision: 'allow', scope: 'once', label: 'allowed once' },
  t: { decision: 'allow', scope: 'task', label: 'allowed for this task', suggested: true },
  T: { decision: 'allow', scope: 'task', label: 'allowed for this task (exactly this)' },
  m: { decision: 'allow', scope: 'duration', durationSec: 15 * 60, label: 'allowed for 15 minutes' },
  a: { decision: 'allow', scope: 'always', label: 'allowed always' },
};
/** Keystrokes within this long of a prompt appearing are ignored (meant for another window). */
const GUARD_MS = 500;

export function registerWatch(program: Command): void {
  program
    .command('watch')
    .description('answer prompts in this terminal: [d]eny [o]nce [t]ask (suggested pattern) [T]ask exactly [e]dit pattern, 15 [m]inutes [a]lways, ↑/↓ or j/k to pick, q to quit')
    .action(async () => {
      const c = await connectUi();
      const prompts = new Map<string, Prompt>();
      const shownAt = new Map<string, number>();
      let selected = 0;
      let status = 'waiting for requests…';
      /** While editing a pattern for "allow for this task": the text typed so far. */
      let editing: { id: string; text: string } | null = null;
      const tty = process.stdout.isTTY;

      const list = () => [...prompts.values()].sort((a, b) => a.createdAt - b.createdAt);
      const render = () => {
        const ps = list();
        if (selected >= ps.length) selected = Math.max(0, ps.length - 1);
        const out: string[] = [];
        out.push(`Airlock — ${ps.length} pending   [d]eny [o]nce [t]ask [T]ask exactly [e]dit pattern [m] 15 min [a]lways   ↑↓ pick   q quit`);
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
          if (p.suggestion) out.push(`    [t] allows for this task: ${p.suggestion.label}   (pattern ${p.suggestion.resource})`);
          else if (p.task) out.push('    [t] allows exactly this request for this task (no wider pattern is safe)');
          out.push('');
        });
        if (ps.length === 0) out.push('  no pending prompts');
        out.push('');
        if (editing) out.push(`pattern for this task (Enter accepts, empty = exactly this request, Esc cancels): ${editing.text}█`);
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
          const pattern = choice.suggested && p.suggestion ? { pattern: { tool: p.suggestion.tool, resource: p.suggestion.resource } } : {};
          await c.call('pending.decide', { id: p.id, decision: choice.decision, scope: choice.scope, ...(choice.durationSec ? { durationSec: choice.durationSec } : {}), ...pattern });
          prompts.delete(p.id);
          status = `${choice.label}: ${p.summary}`;
        } catch (e) {
          status = `error: ${(e as Error).message}`;
        }
        render();
      };

      if (process.stdin.isTTY) process.stdin.setRawMode(true);
      process.stdin.setEncoding('utf8');
      const finishEdit = async (accept: boolean) => {
        const e = editing;
        editing = null;
        const p = e ? prompts.get(e.id) : undefined;
        if (!accept || !e || !p) {
          status = 'edit cancelled';
          return render();
        }
        try {
          // An empty pattern means exactly this request (the core escapes it).
          const text = e.text.trim();
          const pattern = text ? { pattern: { tool: p.suggestion?.tool ?? p.tool, resource: text } } : {};
          await c.call('pending.decide', { id: p.id, decision: 'allow', scope: 'task', ...pattern });
          prompts.delete(p.id);
          status = `allowed for this task ${text ? `with pattern ${text}` : 'exactly'}: ${p.summary}`;
        } catch (err) {
          status = `error: ${(err as Error).message}`;
        }
        render();
      };

      process.stdin.on('data', (s: string) => {
        if (editing) {
          // Keys can arrive several to a chunk (fast typing, paste): take them one by one.
          for (const ch of s) {
            if (ch === '\r' || ch === '\n') return void finishEdit(true);
            if (ch === '\u001b' || ch === '\u0003') return void finishEdit(false);
            if (ch === '\u007f' || ch === '\b') editing.text = editing.text.slice(0, -1);
            else if (!/[\u0000-\u001f]/.test(ch)) editing.text += ch;
          }
          return render();
        }
        if (s === 'e') {
          const p = list()[selected];
          if (!p) return;
          if (!p.task) {
            status = 'this request belongs to no task: use [o]nce, [m]inutes or [a]lways';
            return render();
          }
          if (Date.now() - (shownAt.get(p.id) ?? 0) < GUARD_MS) return;
          // Prefilled with the suggestion; with none, empty = exactly this request.
          editing = { id: p.id, text: p.suggestion?.resource ?? '' };
          return render();
        }
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
