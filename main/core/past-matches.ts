// "Would have matched N of this task's past events" beside a suggested grant (issue 11
// item 6): how wide a pattern really is, measured on what the task already did. Counted
// over a bounded window (the task's last PAST_WINDOW events) so a long task cannot make a
// prompt slow. A count is an estimate for the human, never a decision: it uses the same
// tool glob and resource coverage as a grant (resourcesCovered: sensitive parts stay
// excluded), and for a shell command pattern it matches the event's recorded command.
import { resourcesCovered } from './grants';
import { globMatches } from './glob';

/** Events looked at: the task's most recent ones. */
export const PAST_WINDOW = 1000;

/** What of a past event a count needs (Store.taskRecentEvents). */
export interface PastEvent {
  tool: string;
  action: string;
  resources: string[];
  /** The shell command the event ran (its args.command), when it had one. */
  command: string | null;
}

/** How many of `events` the suggested pattern (tool glob, resource glob) would have covered. */
export function countPastMatches(pattern: { tool: string; resource: string }, events: readonly PastEvent[]): number {
  let n = 0;
  for (const e of events) {
    if (!globMatches(pattern.tool, e.tool)) continue;
    const byResource = e.resources.length > 0 && resourcesCovered(pattern.resource, e.resources);
    const byCommand = e.command !== null && globMatches(pattern.resource, e.command.trim());
    if (byResource || byCommand) n++;
  }
  return n;
}
