// Friction that grows with risk (issue 11, item 5), enforced where decisions are made:
// the daemon, not only the buttons a UI shows. A client that sends `pending.decide` by
// hand (ui.sock, the web socket, a script) meets the same rule as the pop-up.
//
// - critical: Deny or Allow once. No allow grant of any scope: a grant never answers a
//   critical request later anyway (broker.ask), so offering one would only mislead.
// - high: no allow "always" (task and a duration stay: they end on their own).
// A deny decision may carry any scope: a deny grant only ever narrows what is allowed.
import type { Decision, RiskLevel, Scope } from '../contract/common';

/** Why this decision is refused for a prompt of this risk, with what to do instead; null when it is fine. */
export function scopeRefusal(level: RiskLevel, decision: Decision, scope: Scope, makesAllowGrant = decision === 'allow'): string | null {
  if (scope === 'once' || !makesAllowGrant) return null;
  if (level === 'critical') {
    return `a critical request is allowed only once, never by a grant (scope ${scope} refused): decide again with scope "once", or deny`;
  }
  if (level === 'high' && scope === 'always') {
    return 'a high-risk request cannot be allowed "always": choose "once", "task" or a duration, or deny';
  }
  return null;
}
