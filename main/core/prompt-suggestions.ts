// What a prompt offers the human to start a grant from: conditions built from the request's
// own arguments, and the suggested pattern with how many of the task's recent events it
// would have matched. Used when a prompt is made and when it is shown again (prompt-queue.ts).
import { suggestConditions } from './condition-suggest';
import { conditionArgs } from './grants';
import type { HistoryRecorder } from './history-recorder';
import { countPastMatches, PAST_WINDOW } from './past-matches';
import type { CoreRequest } from './request';
import type { Suggestion } from './suggest';

/** Conditions the human can start from, built from this request's own arguments. */
export function conditionSuggestions(req: CoreRequest): { conditions?: { when: string; words: string }[] } {
  if (req.ssh) return {};
  const input = conditionArgs(req);
  if ('error' in input) return {};
  const list = suggestConditions(input.args);
  return list.length ? { conditions: list } : {};
}

/**
 * The suggestion with how many of the task's last PAST_WINDOW events it would have
 * matched. Never fatal: a history that cannot be read leaves the suggestion without it.
 */
export function withPastMatches(s: Suggestion | null | undefined, task: string | null, recorder: Pick<HistoryRecorder, 'recentTaskEvents'>): (Suggestion & { pastMatches?: { matched: number; of: number } }) | null | undefined {
  if (!s || !task) return s;
  try {
    const events = recorder.recentTaskEvents(task, PAST_WINDOW);
    return { ...s, pastMatches: { matched: countPastMatches(s, events), of: events.length } };
  } catch {
    return s;
  }
}
