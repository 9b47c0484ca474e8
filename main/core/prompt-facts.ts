// What the daemon adds to a prompt from facts only it can know (issue 11 item 3): the
// consequence line and diff (from the disk, through the ConsequenceProbe port) and the
// agent's side of the process tree. Never fatal: a probe that throws leaves the prompt
// without the line, and the prompt is still shown (default to asking).
import type { Prompt } from '../contract/approver';
import { agentChain, commandLineOf, type OwnInstall } from './agent-chain';
import { consequenceOf } from './consequence';
import type { ConsequenceProbe } from './ports';
import type { CoreRequest } from './request';

export function promptFacts(req: CoreRequest, probe: ConsequenceProbe | undefined, own: OwnInstall): Pick<Prompt, 'consequence' | 'diff' | 'agent'> {
  const out: Pick<Prompt, 'consequence' | 'diff' | 'agent'> = {};
  if (probe) {
    try {
      const c = consequenceOf(req, probe);
      if (c?.lines.length) out.consequence = c.lines;
      if (c?.diff) out.diff = c.diff;
    } catch {
      out.consequence = ['(Airlock could not work out what this will do; judge by the command)'];
    }
  }
  const chain = agentChain(req.process, own);
  if (chain.length) out.agent = chain.map((n) => ({ pid: n.pid, exe: n.exe, commandLine: commandLineOf(n) }));
  return out;
}
