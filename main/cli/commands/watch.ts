// `airlock watch`: the terminal approver for machines without a desktop (issue 11 item 10).
// - One prompt in front at a time, with a "1 of N" queue the human moves through on
//   purpose (j/k, ↑/↓). A new request joins the queue; it never takes the screen.
// - Every key acts on the prompt on screen, by id. Whenever that prompt changes (moved,
//   answered, gone), keys are ignored for half a second: a key pressed twice cannot answer
//   a second prompt the human has not seen.
// - Only the choices the prompt allows (shared/prompt-choices: critical = deny or once,
//   high = no always, no task = no [t]); "always" needs a second, deliberate key (y).
// - Only a key typed on its own, after the guard, with the prompt visible, decides (red team
//   of keystroke binding, test/integration/redteam-keys-watch.test.ts): a paste (bracketed
//   paste is turned on) or a burst of bytes in one read is never a key; any input while the
//   guard holds pushes its end back; a resize re-arms it (the screen moved); a terminal too
//   small to show the header and the risk line answers nothing until it is enlarged; a
//   terminal that reports focus (tmux `focus-events on`) answers nothing while unfocused
//   and re-arms on focus, so keys typed ahead of a `tmux attach` do not decide.
// - The alternate screen with a fixed header; a frame is written only when it changed,
//   in place (no clearing, no scrollback flooding). Agent text is shown escaped.
// - When the daemon goes away the prompts shown are gone (the daemon denied them); watch
//   says so and reconnects by itself.
// Over 400 lines on purpose: the key handling, the screen and the queue share one state
// machine (the half-second key guard depends on all three), and splitting it would spread
// that guard across files.
import type { Command } from 'commander';
import type { RpcClient } from '../../client/rpc-client';
import { UntrustedSocketError } from '../../os/socket-trust';
import type { Prompt, PromptGrant } from '../../contract/approver';
import { describeTree } from '../../os/peer';
import { columnsOf, fitColumns, splitColumns, visible } from '../../../shared/display-text';
import { allowedChoices, literalOf, type Choice } from '../../../shared/prompt-choices';
import { ACTION_ORIGIN_WORDS, bytesInWords, conditionParts } from '../../../shared/request-origin';
import { connectUi } from '../util';
import { fitGroups, tailColumns, wrapLabelled, type LineGroup } from './watch-layout';
import { blankRunWords, foldBlankLines, literalEnding } from '../../../shared/literal-fold';

/** Keystrokes within this long of a prompt coming on screen are ignored. */
const GUARD_MS = 500;
const RECONNECT_MS = 1000;
/** Lines of the literal command shown before "(+N more lines)". */
const LITERAL_LINES = 6;
/** Lines of an Edit/Write diff shown before "(+N more lines)": enough to read the change, never the whole screen. */
const DIFF_LINES = 12;
/** Agent processes listed: the nearest ones, shown oldest first like the web card. */
const AGENT_LINES = 4;
/** Columns of the agent's tool name in the header line, before the prompt's id and countdown. */
const TOOL_COLUMNS = 40;

type Decide = { decision: 'allow' | 'deny'; scope: 'once' | 'task' | 'duration' | 'always'; durationSec?: number; pattern?: { tool: string; resource?: string }; confirmGrants?: number[]; serverReadOnly?: boolean };

// The alternate screen, no cursor, bracketed paste (a paste arrives marked, never as keys)
// and focus reports (\x1b[I / \x1b[O).
const ALT_ON = '\x1b[?1049h\x1b[?25l\x1b[?2004h\x1b[?1004h';
const ALT_OFF = '\x1b[?1004l\x1b[?2004l\x1b[?25h\x1b[?1049l';
const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';
/** Below this a frame cannot show the header, the risk line and the literal without scrolling them away. */
const MIN_COLS = 40;
const MIN_ROWS = 12;

/** The task.start grant request: every grant, as structured data (Prompt.grants). */
const grantSpecs = (p: Prompt): PromptGrant[] | null => (p.tool === 'task.start' && p.grants ? p.grants : null);

/**
 * One entry per grant a task asks for in task.start, in full (issue 10 item 3): never cut
 * into a summary or to the terminal's width (a long grant wraps) or height (the grant list
 * is never shortened). `!` high-impact action, `*` wildcard; a wildcard allow of a
 * high-impact action says whether it was confirmed (key c), since "o" alone never creates it.
 */
export function grantLines(grants: PromptGrant[], confirmed: ReadonlySet<number>, width = Number.MAX_SAFE_INTEGER): string[] {
  const flagged = grants.filter((g) => g.needsConfirmation).length;
  const out = [`  grants asked for (${grants.length}; ! high-impact action, * wildcard${flagged ? `; ${flagged} need [c]onfirming one by one, else not created` : ''}):`];
  for (const g of grants) {
    const marks = `${g.highImpact ? '!' : ' '}${g.wildcard ? '*' : ' '}`;
    const limits = [g.key ? `key ${g.key}` : '', g.when ? `when ${g.when}` : '', g.expiresAt !== null ? `until ${new Date(g.expiresAt).toISOString()}` : '', g.uses !== null ? `${g.uses} uses` : '', g.forwarded ? 'forwarded ok' : '']
      .filter(Boolean)
      .join(', ');
    const confirm = g.needsConfirmation ? (confirmed.has(g.index) ? '   [CONFIRMED]' : '   [WILDCARD HIGH-IMPACT: not created unless confirmed with c]') : '';
    const action = g.action === '*' ? '* (every action)' : Array.isArray(g.action) ? g.action.join(', ') : g.action;
    const line = visible(`  ${marks} #${String(g.index).padEnd(3)} ${g.effect} ${action} · source ${g.source} · tool ${g.tool} · on ${g.resource}${limits ? ` · ${limits}` : ''}${g.note ? ` · note: ${g.note}` : ''}${confirm}`);
    const w = Math.max(20, width - 8);
    // By columns: a wide note must not make fit() cut off the [WILDCARD …] mark at the end.
    splitColumns(line, w).forEach((piece, i) => out.push(i === 0 ? piece : `        ${piece}`));
  }
  return out;
}

/**
 * What will happen and who asks, as the web card shows them (issue 11 item 3): the
 * daemon's consequence lines, the first lines of an Edit/Write diff (capped, every line
 * escaped by wrap/visible), and the agent's processes past Airlock's own, oldest first.
 */
export function whatAndWho(p: Prompt, width: number): string[] {
  const out: string[] = [];
  for (const line of p.consequence ?? []) out.push(`  will: ${line}`);
  if (p.diff?.text) {
    const d = p.diff;
    out.push(`  diff of ${d.path} (+${d.added} −${d.removed}${d.truncated ? ', cut' : ''}):`);
    out.push(...wrap(d.text, width, DIFF_LINES));
  }
  if (p.diff?.note) out.push(`  diff: ${p.diff.note}`);
  if (p.agent?.length) {
    // Oldest first like the web card; when cut, the oldest go (the nearest is the one asking).
    const chain = [...p.agent].reverse();
    out.push('  agent:');
    if (chain.length > AGENT_LINES) out.push(`    (+${chain.length - AGENT_LINES} older processes)`);
    // A long command line is cut before its pid, not the pid off the end of the line.
    for (const n of chain.slice(-AGENT_LINES)) {
      const pid = ` (pid ${n.pid})`;
      out.push(`    ${fitColumns(visible(n.commandLine), Math.max(10, width - 4 - pid.length))}${pid}`);
    }
  }
  return out;
}

function choicesOf(p: Prompt): Choice[] {
  return grantSpecs(p) ? ['deny', 'once'] : allowedChoices(p);
}

/** Cuts a (visible, escaped) line to the terminal width so the layout never wraps. */
function fit(line: string, width: number): string {
  // In columns, not code units: wide characters must not wrap the line (display-text.ts).
  return fitColumns(line, width);
}

/** Lines the status line may take: enough for the "will not connect" message (why, what to do) at 80 columns. */
const STATUS_LINES = 8;

/**
 * The status under the prompt, wrapped at spaces to the width: a message that says what to
 * do next (a planted socket directory: remove it, or set XDG_RUNTIME_DIR or AIRLOCK_HOME)
 * must not be cut after its first line. Made visible first, as it may quote agent text.
 */
function statusLines(status: string, width: number): string[] {
  const lines: string[] = [];
  let cur = '';
  for (const word of visible(status).split(' ')) {
    for (const piece of splitColumns(word, width)) {
      if (cur === '') cur = piece;
      else if (columnsOf(`${cur} ${piece}`) <= width) cur = `${cur} ${piece}`;
      else {
        lines.push(cur);
        cur = piece;
      }
    }
  }
  lines.push(cur);
  return lines.length > STATUS_LINES ? [...lines.slice(0, STATUS_LINES - 1), fit(lines.slice(STATUS_LINES - 1).join(' '), width)] : lines;
}

/** A long text wrapped to the width, at most `max` lines, with what was left out counted. */
function wrap(text: string, width: number, max: number, indent = '    '): string[] {
  const w = Math.max(10, width - indent.length);
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = visible(raw, { multiline: true }).replace(/\t/g, '  ');
    for (const piece of splitColumns(line, w)) out.push(indent + piece);
  }
  if (out.length <= max) return out;
  return [...out.slice(0, max), `${indent}(+${out.length - max} more lines)`];
}

export function registerWatch(program: Command): void {
  program
    .command('watch')
    .description('answer prompts in this terminal, one at a time: [d]eny [o]nce [t]ask [T]ask exactly [e]dit, 15 [m]inutes, [a]lways then y, [D]eny all of the task; j/k to move through the queue, q to quit')
    .action(async () => {
      const tty = Boolean(process.stdout.isTTY);
      const prompts = new Map<string, Prompt>();
      let currentId: string | null = null;
      /** When the prompt on screen came on screen: the input guard counts from here. */
      let onScreenSince = Date.now();
      let status = 'waiting for requests…';
      let connected = false;
      let c: RpcClient | null = null;
      /** While editing a pattern for "allow for this task": the text typed so far. */
      let editing: { id: string; text: string } | null = null;
      /** "Always" waits for its second key (y) on this prompt. */
      let confirmAlways: string | null = null;
      /** Per task.start prompt: the wildcard high-impact grants the human confirmed, one by one (key c). */
      const confirmedGrants = new Map<string, Set<number>>();
      let lastFrame = '';
      let quitting = false;

      const list = () => [...prompts.values()].sort((a, b) => a.expiresAt - b.expiresAt || a.createdAt - b.createdAt);
      const current = () => (currentId ? (prompts.get(currentId) ?? null) : null);
      /** Puts another prompt on screen and re-arms the guard (it is what a key would act on now). */
      const show = (id: string | null) => {
        if (id === currentId) return;
        currentId = id;
        onScreenSince = Date.now();
        editing = null;
        confirmAlways = null;
      };
      const armed = () => Date.now() - onScreenSince >= GUARD_MS;
      /** Input while the guard holds pushes its end back: a human pauses, then presses. */
      const holdGuard = () => {
        if (current() && !armed()) onScreenSince = Date.now();
      };
      /** False after the terminal reported losing focus (\x1b[O), until it reports focus again. */
      let focused = true;
      const fits = () => !tty || ((process.stdout.columns || 0) >= MIN_COLS && (process.stdout.rows || 0) >= MIN_ROWS);

      const frame = (): string[] => {
        if (!fits()) {
          // Too small: the prompt would scroll its header and risk line away. Say so in
          // what fits, and answer nothing until the terminal is enlarged.
          const cols = Math.max(1, process.stdout.columns || 1);
          const n = prompts.size;
          const lines = [`Airlock: ${n} pending`, `terminal too small to show a prompt: enlarge it to ${MIN_COLS}×${MIN_ROWS} to answer`, 'keys are ignored until then · q quits'];
          return lines.slice(0, Math.max(1, process.stdout.rows || 1)).map((l) => fit(l, cols));
        }
        const width = Math.max(40, process.stdout.columns || 100);
        const height = Math.max(12, process.stdout.rows || 40);
        const ps = list();
        const p = current();
        const pos = p ? ps.findIndex((x) => x.id === p.id) + 1 : 0;
        const head: string[] = [
          `Airlock watch — ${connected ? `${ps.length} pending` : "can't reach Airlock"}${ps.length ? ` · request ${pos} of ${ps.length}` : ''} · j/k move · q quit`,
          '─'.repeat(Math.min(width, 100)),
        ];
        // The card in groups, most important first-kept (watch-layout.ts): when rows run
        // short, the process chain, what will happen and the literal's later lines give way
        // before the reasons, the paths acted on and the keys.
        const groups: LineGroup[] = [];
        const add = (lines: string[], rank: number, min: number, more: (n: number) => string, cap?: number) => {
          if (lines.length) groups.push({ lines, rank, min, more, ...(cap !== undefined ? { cap } : {}) });
        };
        const one = (line: string, rank = 0) => add([line], rank, 1, () => line);
        if (!p) one(connected ? '  no pending prompts' : '  (reconnecting…)');
        else {
          const left = Math.max(0, Math.ceil((p.expiresAt - Date.now()) / 1000));
          // The tool name is the agent's: in the header it is cut to TOOL_COLUMNS, so padding
          // (or a fake "· p_… · denies in 60s") cannot push the prompt's own id and countdown
          // off the line; a cut name is shown whole on a line of its own.
          const toolShown = visible(p.tool);
          const toolCut = columnsOf(toolShown) > TOOL_COLUMNS;
          one(`[${p.risk.level.toUpperCase()}] ${p.action} · ${toolCut ? fitColumns(toolShown, TOOL_COLUMNS) : toolShown} · ${p.id} · denies in ${left}s${armed() ? '' : ' · (keys wake up in ½ s)'}`);
          if (toolCut) add(wrapLabelled('  tool: ', p.tool, width), 2, 1, (n) => `    (+${n} more lines of the tool name)`);
          // Rank 0, next to the header: the count is what a key does (prompt-coalesce.ts, withWaiting).
          if ((p.waiting ?? 1) > 1) one(`  ${p.waiting} identical requests are waiting: the answer (even [o]nce) answers each of them`);
          const specs = grantSpecs(p);
          if (!specs) {
            // Runs of blank lines are counted, not drawn, and a cut literal says how it ends:
            // padding cannot push what the command runs past the cut (shared/literal-fold.ts).
            const lit = literalOf(p);
            const litLines = foldBlankLines(lit).flatMap((l) => ('blank' in l ? [`    ${blankRunWords(l.blank)}`] : wrap(l.text, width, Number.MAX_SAFE_INTEGER)));
            const cutLit = litLines.length > LITERAL_LINES + 1;
            add(litLines, 3, 2, (n) => `    (+${n} more lines${cutLit ? '; it ends with:' : ''})`, LITERAL_LINES + (cutLit ? 0 : 1));
            const ending = cutLit ? literalEnding(lit, 1) : null;
            if (ending !== null) one(`    ${tailColumns(visible(ending.replace(/\t/g, '  ')), width - 6)}`, 2);
            one(`  summary: ${p.summary}`, 2);
          } else one(`  task "${p.taskName ?? p.task}" asks for ${specs.length} standing grant(s), each listed below`);
          // Every path or host the request acts on, wrapped, never only the first few: an
          // agent can name harmless paths first and the one that matters last.
          const rs = p.resources.length ? p.resources : p.resource ? [p.resource] : [];
          // A task's grant request lists every grant in full below; its resources line stays short.
          if (specs) {
            if (p.resource) one(`  resource: ${p.resources.slice(0, 4).join(', ')}${p.resources.length > 4 ? ` (+${p.resources.length - 4})` : ''}`, 2);
          } else if (rs.length) add(wrapLabelled(rs.length > 1 ? `  resources (${rs.length}): ` : '  resource: ', rs.join(', '), width), 2, 2, (n) => `    (+${n} more lines of resources: too many for this terminal; the web UI lists them all)`);
          if (p.ssh) {
            const where = p.ssh.purpose === 'login' ? `login ${p.ssh.user ?? '?'}@${p.ssh.host ?? p.ssh.hostKey ?? '?'}` : p.ssh.purpose === 'sshsig' ? `sign, namespace ${p.ssh.namespace}` : 'unknown data';
            one(`  ssh: ${where} · key ${p.ssh.keyName ?? ''} ${p.ssh.fingerprint}${p.ssh.forwarded ? ' · FORWARDED' : ''}`, 1);
          }
          if (p.remote) one(`  FROM REMOTE ${p.remote.name} · via ${p.remote.via}`, 1);
          one(`  task: ${p.taskName ?? p.task ?? 'none'}${p.process ? ` · who: ${describeTree(p.process)} (pid ${p.process.pid})` : ''}`, 2);
          const ww = whatAndWho(p, width);
          const agentAt = ww.indexOf('  agent:');
          const will = agentAt >= 0 ? ww.slice(0, agentAt) : ww;
          add(will, 4, 1, (n) => `  will: (+${n} more lines: the terminal is too small)`);
          if (agentAt >= 0) add(ww.slice(agentAt), 5, 1, (n) => `  agent: (${n} lines left out: the terminal is too small)`);
          const why: string[] = [];
          for (const r of p.risk.reasons) why.push(...wrapLabelled('  why: ', r, width));
          add(why, 1, Math.min(why.length, 2), (n) => `  why: (+${n} more lines: enlarge the terminal to read them)`);
          if (p.risk.level === 'critical') one('  critical: only [o]nce is offered — no grant ever approves this by itself');
          if (p.nearMiss) one(`  asked because: ${p.nearMiss}`, 2);
          if (p.mcpServer) one(`  mcp server: ${p.mcpServer}`, 1);
          if (p.actionOrigin) one(`  "${p.action}" from: ${ACTION_ORIGIN_WORDS[p.actionOrigin]}`, 1);
          if (p.egress) {
            const e = p.egress;
            one(`  where: ${e.host} port ${e.port} · address ${e.address ?? 'resolved only once allowed'} · ${e.method}`, 1);
            one(`  sent so far: ${bytesInWords(e.sentBytes)} out, ${bytesInWords(e.receivedBytes)} in, to ${e.destinations} destination(s)${e.secrets?.length ? ` · secrets ${e.secrets.join(', ')}` : ''}`, 1);
          }
          const allowed = choicesOf(p);
          const parts = allowed.includes('task') || allowed.includes('duration') ? conditionParts(p.conditions) : [];
          if (parts.length) one(`  conditions a grant could carry (web UI, or grants add --when): ${parts.map((c) => c.words).join(' · ')}`, 4);
          if (allowed.includes('task')) {
            if (p.suggestion) {
              const past = p.suggestion.pastMatches;
              one(`  [t] allows for this task: ${p.suggestion.label}   (pattern ${p.suggestion.resource})`, 1);
              if (past) one(`      would have matched ${past.matched} of this task's last ${past.of} event${past.of === 1 ? '' : 's'}`, 4);
            }
            else one('  [t] allows exactly this request for this task (no wider pattern is safe)', 1);
          }
          add([''], 4, 0, () => '');
          const keys = specs
            ? [`[d]/Esc refuse`, `[o] accept the grants (unconfirmed wildcard ones excepted)`, ...(specs.some((g) => g.needsConfirmation) ? ['[c] confirm the next wildcard grant'] : [])]
            : [
                '[d]/Esc deny',
                '[o] once',
                ...(allowed.includes('task') ? ['[t] task', '[T] task exactly', '[e] edit pattern'] : []),
                ...(allowed.includes('task') && p.mcpServer && p.source === 'mcp' ? [`[r] only reads from ${p.mcpServer}, for this task`] : []),
                ...(allowed.includes('duration') ? [p.task ? '[m] 15 min, this task' : '[m] 15 min'] : []),
                ...(allowed.includes('always') ? ['[a] always…'] : []),
                ...(p.task ? [`[D] deny all from this task (${ps.filter((x) => x.task === p.task).length})`] : []),
              ];
          one(keys.join('  '));
          if (confirmAlways === p.id) one('ALWAYS allow exactly this request, for every task, with no end? press y to confirm, any other key cancels');
          if (editing) one(`pattern for this task (Enter accepts, empty = exactly this request, Esc cancels): ${editing.text}█`);
        }
        if (ps.length > 1) {
          const queue = ['', 'queue:', ...ps.map((x, i) => `${x.id === currentId ? '>' : ' '} ${i + 1}. [${x.risk.level.toUpperCase()}] ${x.action}: ${x.summary}`)];
          add(queue, 6, 0, (n) => `  (+${n} more lines of the queue)`);
        }
        const foot = ['', ...statusLines(status, width)];
        // A grant request's list is never shortened: it goes last, after the keys, and the
        // rest of the body gives way (the terminal scrolls if even the list does not fit).
        const grantList = p && grantSpecs(p) ? grantLines(grantSpecs(p)!, confirmedGrants.get(p.id) ?? new Set(), width) : [];
        const room = height - head.length - foot.length - grantList.length;
        const shown = [...(room > 0 ? fitGroups(groups, room) : []), ...grantList];
        // Every line may hold agent text: made visible once here, then cut to the width.
        return [...head, ...shown, ...foot].map((l) => fit(visible(l), width));
      };

      const render = (force = false) => {
        if (quitting) return;
        const lines = frame();
        const text = lines.join('\n');
        if (!force && text === lastFrame) return;
        if (tty) {
          // In place: home, each line cleared to its end, the rest of the screen cleared.
          process.stdout.write('\x1b[H' + lines.map((l) => `${l}\x1b[K`).join('\n') + '\x1b[J');
        } else {
          // A pipe or log: only what changed, never the countdown ticking.
          const quiet = text.replace(/denies in \d+s/g, '');
          if (quiet === lastFrame.replace(/denies in \d+s/g, '') && !force) {
            lastFrame = text;
            return;
          }
          process.stdout.write(text + '\n\n');
        }
        lastFrame = text;
      };

      const onAdded = (p: Prompt) => {
        prompts.set(p.id, p);
        // A new request joins the queue; only an empty screen takes it.
        if (!current()) show(p.id);
      };
      const onGone = (id: string) => {
        confirmedGrants.delete(id);
        if (!prompts.has(id)) return;
        const ps = list();
        const i = ps.findIndex((x) => x.id === id);
        prompts.delete(id);
        if (id === currentId) {
          const rest = list();
          show(rest[Math.min(i, rest.length - 1)]?.id ?? null);
        }
      };

      const connect = async (): Promise<void> => {
        for (let attempt = 0; !quitting; attempt++) {
          try {
            const conn = await connectUi();
            conn.onNotification = (method, params) => {
              if (method === 'pending.added') onAdded(params as Prompt);
              else if (method === 'pending.updated') {
                const u = params as Prompt;
                if (!prompts.has(u.id)) return;
                // What a key would do changed (it answers more requests now): guarded afresh.
                if (u.id === currentId && (u.waiting ?? 1) !== (prompts.get(u.id)!.waiting ?? 1)) onScreenSince = Date.now();
                prompts.set(u.id, u);
              } else if (method === 'pending.resolved') {
                const r = params as { id: string; reason: string };
                if (prompts.has(r.id)) status = `resolved ${r.id}: ${r.reason}`;
                onGone(r.id);
              } else return;
              render();
            };
            conn.onClose = () => {
              if (quitting) return;
              connected = false;
              c = null;
              const n = prompts.size;
              prompts.clear();
              show(null);
              status = `can't reach Airlock: the daemon went away${n ? ` and denied the ${n} prompt${n === 1 ? '' : 's'} shown` : ''}; reconnecting…`;
              render();
              setTimeout(() => void connect(), RECONNECT_MS);
            };
            await conn.call('subscribe');
            const { prompts: initial } = await conn.call<{ prompts: Prompt[] }>('pending.list');
            prompts.clear();
            currentId = null;
            for (const p of initial) onAdded(p);
            c = conn;
            connected = true;
            if (attempt > 0 || status.startsWith("can't reach")) status = 'connected to Airlock again';
            render();
            return;
          } catch (e) {
            connected = false;
            // A socket another user could have planted is named as such (os/socket-trust.ts).
            status = e instanceof Error && e.cause instanceof UntrustedSocketError ? `${e.message} Retrying every second…` : "can't reach Airlock (is `airlock serve` running?); retrying every second…";
            render();
            await new Promise((r) => setTimeout(r, RECONNECT_MS));
          }
        }
      };

      const quit = (code: number) => {
        quitting = true;
        clearInterval(ticker);
        c?.close();
        if (tty) process.stdout.write(ALT_OFF);
        process.exit(code);
      };

      if (tty) process.stdout.write(ALT_ON);
      process.on('SIGTERM', () => quit(0));
      process.stdout.on('resize', () => {
        // What is on screen moved (or came back into view): the guard starts again.
        if (current()) onScreenSince = Date.now();
        render(true);
      });
      // The countdown; render() writes only when the frame changed.
      const ticker = setInterval(() => render(), 1000);
      await connect();

      /**
       * Prompts whose answer is on its way to the daemon. A key for one of them is ignored: a
       * second decide would only be refused (the first one settles the prompt) and put an
       * error on the status line over the answer that counted.
       */
      const answering = new Set<string>();
      /** Sends the decision; false when it was not sent (no connection, or an answer to the prompt is already on its way). */
      const send = async (p: Prompt, d: Decide, label: string): Promise<boolean> => {
        if (!c || answering.has(p.id)) return false;
        answering.add(p.id);
        status = `sending the answer to ${p.id}…`;
        render();
        try {
          const r = await c.call<{ notCovered?: string }>('pending.decide', { id: p.id, ...d });
          // An edited pattern that leaves this request out: said, since the answer then held only once.
          status = `${label} ${p.id}: ${p.summary}${r?.notCovered ? ` (once: the grant made does not cover it: ${r.notCovered})` : ''}`;
          onGone(p.id);
        } catch (e) {
          status = `error: ${(e as Error).message}`;
        } finally {
          answering.delete(p.id);
        }
        render();
        return true;
      };

      /** Whether a key may act now; says why not when it may not. */
      const mayAct = (key: string): Prompt | null => {
        const p = current();
        if (!p || !connected) return null;
        if (!fits()) {
          status = `ignored "${key}": the terminal is too small to show the prompt`;
          render();
          return null;
        }
        if (!focused) {
          status = `ignored "${key}": the terminal is not focused`;
          render();
          return null;
        }
        if (!armed()) {
          holdGuard();
          status = `ignored "${key}": the prompt on screen changed less than ${GUARD_MS} ms ago`;
          render();
          return null;
        }
        if (answering.has(p.id)) {
          status = `ignored "${key}": the answer to ${p.id} is already on its way`;
          render();
          return null;
        }
        return p;
      };

      const onKey = async (key: string) => {
        const p = mayAct(key);
        if (!p) return;
        const allowed = choicesOf(p);
        const offer = (ch: Choice): boolean => {
          if (allowed.includes(ch)) return true;
          status = ch === 'task' ? 'this request belongs to no task (or its risk allows no grant)' : `"${key}" is not offered for this ${p.risk.level} request`;
          render();
          return false;
        };
        switch (key) {
          case 'd':
          case '\u001b':
            return send(p, { decision: 'deny', scope: 'once' }, 'denied');
          case 'o': {
            const specs = grantSpecs(p);
            if (!specs) return send(p, { decision: 'allow', scope: 'once' }, 'allowed once');
            const confirmed = [...(confirmedGrants.get(p.id) ?? [])];
            const left = specs.filter((g) => g.needsConfirmation && !confirmed.includes(g.index)).map((g) => `#${g.index}`);
            return send(
              p,
              { decision: 'allow', scope: 'once', ...(confirmed.length ? { confirmGrants: confirmed } : {}) },
              `accepted ${specs.length - left.length} grant(s)${left.length ? ` (NOT created (wildcard, not confirmed): ${left.join(', ')})` : ''} of`,
            );
          }
          case 'c': {
            // One press confirms one wildcard grant of a high-impact action, after the guard.
            const specs = grantSpecs(p);
            if (!specs) return;
            const set = confirmedGrants.get(p.id) ?? new Set<number>();
            const next = specs.find((g) => g.needsConfirmation && !set.has(g.index));
            if (!next) status = 'no wildcard grant left to confirm';
            else {
              set.add(next.index);
              confirmedGrants.set(p.id, set);
              status = `confirmed #${next.index}: ${next.effect} ${next.action} ${next.tool} on ${next.resource} — [o] to accept`;
            }
            return render();
          }
          case 't':
            if (!offer('task')) return;
            return send(p, { decision: 'allow', scope: 'task', ...(p.suggestion ? { pattern: { tool: p.suggestion.tool, resource: p.suggestion.resource } } : {}) }, 'allowed for this task');
          case 'T':
            if (!offer('task')) return;
            return send(p, { decision: 'allow', scope: 'task' }, 'allowed for this task (exactly this)');
          case 'r':
            // "Only reads from this server, for this task" (an allow for its reads, a deny for the rest).
            if (!p.mcpServer || p.source !== 'mcp' || !offer('task')) return;
            return send(p, { decision: 'allow', scope: 'task', serverReadOnly: true }, `only reads from ${p.mcpServer} for this task; ${p.action === 'read' ? 'allowed' : 'denied'}`);
          case 'e':
            if (!offer('task')) return;
            // Prefilled with the suggestion; with none, empty = exactly this request.
            editing = { id: p.id, text: p.suggestion?.resource ?? '' };
            return render();
          case 'm':
            if (!offer('duration')) return;
            // Exactly this request for 15 minutes: the suggestion is a task-sized pattern.
            return send(p, { decision: 'allow', scope: 'duration', durationSec: 15 * 60 }, p.task ? 'allowed for 15 minutes, for this task' : 'allowed for 15 minutes');
          case 'a':
            if (!offer('always')) return;
            // The second step: y confirms, after a fresh guard; anything else cancels.
            confirmAlways = p.id;
            onScreenSince = Date.now();
            status = 'always? press y to confirm';
            return render();
          case 'D': {
            if (!p.task) {
              status = 'this request belongs to no task';
              return render();
            }
            let n = 0;
            for (const x of list().filter((y) => y.task === p.task)) if (await send(x, { decision: 'deny', scope: 'once' }, 'denied')) n++;
            status = `denied ${n} request${n === 1 ? '' : 's'} from task ${p.taskName ?? p.task}`;
            return render();
          }
        }
      };

      const finishEdit = async (accept: boolean) => {
        const e = editing;
        editing = null;
        const p = e ? prompts.get(e.id) : undefined;
        if (!accept || !e || !p || p.id !== currentId) {
          status = 'edit cancelled';
          return render();
        }
        // An empty pattern means exactly this request (the core escapes it).
        const text = e.text.trim();
        await send(p, { decision: 'allow', scope: 'task', ...(text ? { pattern: { tool: p.suggestion?.tool ?? p.tool, resource: text } } : {}) }, `allowed for this task ${text ? `with pattern ${text}` : 'exactly'}:`);
      };

      if (process.stdin.isTTY) process.stdin.setRawMode(true);
      process.stdin.setEncoding('utf8');
      // Not a terminal (a pipe from a script, `expect`): one key per line, so `echo o` works;
      // the half-second guard still applies to each. A terminal keeps one key per chunk.
      let pending = '';
      process.stdin.on('data', (chunk: string) => {
        if (process.stdin.isTTY) return fromTerminal(chunk);
        pending += chunk;
        const lines = pending.split('\n');
        pending = lines.pop()!.slice(-64);
        for (const line of lines.slice(0, 64)) {
          const key = line.replace(/\r$/, '');
          // While editing a pattern, the whole line is the text and its end is Enter.
          if (editing) handle(key + '\r');
          else if (key !== '') handle(key);
        }
      });
      let inPaste = false;
      /** Pasted text: never a key. While editing a pattern it is text (no control characters: a pasted newline does not accept). */
      const pasted = (text: string) => {
        if (editing) editing.text += text.replace(/[\u0000-\u001f\u007f]/g, '');
        else if (text) {
          holdGuard();
          status = 'ignored a paste: a prompt is answered by one key at a time';
        }
        render();
      };
      /** A chunk from the terminal: bracketed pastes and focus reports taken out, the rest typed. */
      const fromTerminal = (chunk: string): void => {
        let typed = '';
        let rest = chunk;
        while (rest) {
          if (inPaste) {
            const end = rest.indexOf(PASTE_END);
            pasted(end < 0 ? rest : rest.slice(0, end));
            if (end < 0) return;
            inPaste = false;
            rest = rest.slice(end + PASTE_END.length);
            continue;
          }
          const start = rest.indexOf(PASTE_START);
          typed += start < 0 ? rest : rest.slice(0, start);
          if (start < 0) break;
          inPaste = true;
          rest = rest.slice(start + PASTE_START.length);
        }
        // Focus first, whatever the order in the chunk: a key that came with a focus-in
        // (typed ahead of an attach) meets the re-armed guard.
        typed = typed.replace(/\x1b\[([IO])/g, (_m, f: string) => {
          focused = f === 'I';
          if (focused && current()) onScreenSince = Date.now();
          status = focused ? 'terminal focused: keys wake up in ½ s' : 'terminal not focused: keys are ignored';
          render();
          return '';
        });
        if (typed) handle(typed);
      };
      const handle = (s: string): void => {
        if (s === '\u0003' || (!editing && s === 'q')) return quit(0);
        if (editing) {
          // Keys can arrive several to a chunk (fast typing, paste): take them one by one.
          for (const ch of s) {
            if (ch === '\r' || ch === '\n') return void finishEdit(true);
            if (ch === '\u001b') return void finishEdit(false);
            if (ch === '\u007f' || ch === '\b') editing.text = editing.text.slice(0, -1);
            else if (!/[\u0000-\u001f]/.test(ch)) editing.text += ch;
          }
          return render();
        }
        if (confirmAlways) {
          const id = confirmAlways;
          confirmAlways = null;
          const p = current();
          if (s === 'y' && p && p.id === id) {
            if (!mayAct('y')) return;
            // Exactly this request, with no end: a wider standing pattern is made under Grants.
            return void send(p, { decision: 'allow', scope: 'always' }, 'allowed always');
          }
          status = 'always: cancelled';
          return render();
        }
        const ps = list();
        const i = ps.findIndex((x) => x.id === currentId);
        if (s === '\u001b[A' || s === 'k') {
          if (i > 0) show(ps[i - 1]!.id);
          return render();
        }
        if (s === '\u001b[B' || s === 'j') {
          if (i >= 0 && i < ps.length - 1) show(ps[i + 1]!.id);
          return render();
        }
        // One key per chunk: a burst ("dd", a paste) answers nothing — the guard is per key
        // and a human presses one at a time.
        if (s.length === 1 || s === '\u001b') void onKey(s);
        else {
          holdGuard();
          status = `ignored ${s.length} keys at once: a prompt is answered by one key at a time`;
          render();
        }
      };
    });
}
