// `airlock task start NAME [--sandbox] [--network] -- AGENT…` (the CLI side; the work is in
// main/integrations/exec/agent.ts). Exits with the agent's own code.
import * as path from 'node:path';
import { EXIT } from '../exit-codes';
import { CliError } from '../util';

export async function runTaskAgentCli(name: string, agent: string[], o: { cwd: string; sandbox?: boolean; network?: boolean; secret?: string[]; ro?: string[]; keepEnv?: string[] }): Promise<void> {
  if (agent.length === 0) throw new CliError('--sandbox runs an agent: airlock task start NAME --sandbox -- AGENT [ARGS…]');
  const { runTaskAgent } = require('../../integrations/exec/agent') as typeof import('../../integrations/exec/agent');
  const { ExecStop } = require('../../integrations/exec/exec') as typeof import('../../integrations/exec/exec');
  const { exitLike } = require('../../integrations/exec/run') as typeof import('../../integrations/exec/run');
  try {
    const { outcome } = await runTaskAgent({
      name,
      cwd: path.resolve(o.cwd),
      argv: agent,
      sandbox: !!o.sandbox,
      network: !!o.network,
      secrets: o.secret ?? [],
      readOnly: (o.ro ?? []).map((p) => path.resolve(p)),
      keepEnv: o.keepEnv ?? [],
      env: process.env,
      log: (line) => process.stderr.write(`airlock: ${line}\n`),
    });
    if (outcome.kind === 'spawn-error') process.stderr.write(`airlock: cannot run ${agent[0]}: ${outcome.message}\n`);
    exitLike(outcome);
  } catch (e) {
    if (e instanceof ExecStop) throw new CliError(e.message, { denied: EXIT.denied, unavailable: EXIT.unavailable, usage: EXIT.usage, sandbox: EXIT.unavailable }[e.kind]);
    throw e;
  }
}
