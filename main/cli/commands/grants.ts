import type { Command } from 'commander';
import type { Grant } from '../../contract/approver';
import { ACTIONS } from '../../contract/common';
import { CliError, callUi, fmtTime, parseDuration, parseWhole, printJson, table } from '../util';

export function describeGrant(g: Grant): string[] {
  return [
    g.id,
    g.effect,
    Array.isArray(g.action) ? g.action.join(',') : g.action,
    // The source, key and forwarded mark are part of what a grant covers: the list showed
    // neither, so a grant for one key (or one source) read the same as one for any (blackbox9).
    g.source !== '*' ? `${g.source} · ${g.tool}` : g.tool,
    g.resource + (g.key ? ` key ${g.key}` : '') + (g.forwarded ? ' forwarded ok' : '') + (g.when ? ` when ${g.whenText ?? g.when}` : ''),
    g.remote ? `${g.task ?? 'any task'} @${g.remote}` : (g.task ?? 'any task'),
    g.expiresAt ? fmtTime(g.expiresAt) : 'never',
    g.usesLeft === null ? '∞' : String(g.usesLeft),
  ];
}

export function registerGrants(program: Command): void {
  const grants = program.command('grants').description('list, add and revoke grants (rules that answer without asking)');
  grants
    .command('list', { isDefault: true })
    .option('--task <id>', 'only this task')
    .option('--all', 'include revoked, expired and used-up grants')
    .option('--json', 'print JSON')
    .action(async (o: { task?: string; all?: boolean; json?: boolean }) => {
      const r = await callUi<{ grants: Grant[] }>('grants.list', { ...(o.task ? { task: o.task } : {}), includeInactive: o.all ?? false });
      if (o.json) return printJson(r.grants);
      if (r.grants.length === 0) return void process.stdout.write('no grants\n');
      process.stdout.write(table([['ID', 'EFFECT', 'ACTION', 'TOOL', 'RESOURCE', 'TASK', 'EXPIRES', 'USES'], ...r.grants.map(describeGrant)], { full: [3, 4] }));
    });
  grants
    .command('add')
    .description('create a grant (deny beats allow; a critical request still asks)')
    .requiredOption('-a, --action <action>', `${ACTIONS.join('|')}|* (several: write,delete)`)
    .option('-t, --tool <glob>', 'tool pattern', '*')
    .option('-r, --resource <glob>', 'resource pattern (paths: * stays in a directory, ** crosses)', '**')
    .option('--source <glob>', 'source pattern (api, exec, claude-code, mcp, ssh)', '*')
    .option('--task <id>', 'bind to a task: dies when the task ends')
    .option('--key <fingerprint>', 'SSH key fingerprint (SHA256:…)')
    .option('--deny', 'a deny grant instead of allow')
    .option('--expires <duration>', 'e.g. 15m, 2h, 1d')
    .option('--uses <n>', 'number of uses', (v) => parseWhole('--uses', v, 1, 1_000_000))
    .option('--forwarded', 'SSH: also match forwarded agent requests')
    .option('--note <text>', 'why this grant exists')
    .option('--remote <name>', 'requests from this remote only (airlock remote); without it an allow grant is for this machine only')
    .option('--when <cel>', "condition over the request's arguments (CEL), e.g. 'args.amount <= 50 && args.to in [\"alice@example.com\"]'")
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExamples:\n  airlock grants add -a write -t Write -r "$PWD/src/**" --task t_abc\n  airlock grants add -a delete --deny -r "/home/me/mail/**" --note "never delete my mail"\n  airlock grants add -a write -t "payments/pay" --when \'args.amount <= 50 && args.to in ["alice@example.com"]\'\n  airlock grants add -a write,delete,transfer,execute --deny -t "gmail/*" --note "gmail: never change anything"')
    .action(async (o: Record<string, string | number | boolean | undefined>) => {
      // An option given with an empty value is refused, never taken as left out: in
      // `--task "$AIRLOCK_TASK"` (mcp-grants.md) an unset variable made a grant for every task
      // that never died; `--key ""` one for every key, `--expires ""` one that never expires (blackbox9).
      for (const k of ['task', 'key', 'expires', 'remote'] as const) {
        if (o[k] !== undefined && String(o[k]).trim() === '') throw new CliError(`--${k} is empty (is the variable you passed set?); leave the option out for ${k === 'task' ? 'a grant of every task' : k === 'key' ? 'any key' : k === 'expires' ? 'no expiry' : 'this machine only'}`);
      }
      const action = typeof o.action === 'string' && o.action.includes(',') ? o.action.split(',').map((a) => a.trim()) : o.action;
      const spec = {
        action,
        tool: o.tool,
        resource: o.resource,
        source: o.source,
        effect: o.deny ? 'deny' : 'allow',
        ...(o.task ? { task: o.task } : {}),
        ...(o.key ? { key: o.key } : {}),
        ...(o.expires ? { expiresAt: Date.now() + parseDuration(String(o.expires)) * 1000 } : {}),
        ...(o.uses !== undefined ? { uses: o.uses } : {}),
        ...(o.forwarded ? { forwarded: true } : {}),
        ...(o.remote ? { remote: o.remote } : {}),
        ...(o.note ? { note: o.note } : {}),
        ...(o.when !== undefined ? { when: o.when } : {}),
      };
      const { grant } = await callUi<{ grant: Grant }>('grants.create', spec);
      if (o.json) return printJson(grant);
      process.stdout.write(`created ${grant.id}: ${describeGrant(grant).slice(1).join(' ')}\n`);
    });
  grants
    .command('revoke <id>')
    .description('revoke a grant: the next matching request asks again')
    .action(async (id: string) => {
      await callUi('grants.revoke', { id });
      process.stdout.write(`revoked ${id}\n`);
    });
}
