// The types the renderer needs, and nothing that runs. app/ imports ONLY from here (type
// imports), so the renderer never pulls main-process code into its bundle.
import type { ApproverMethod, ApproverNotification, ApproverService } from '../main/contract/approver';

export type {
  ApproverMethod,
  ApproverNotification,
  ApproverService,
  AuditHead,
  AuditResult,
  DecideParams,
  Destination,
  Grant,
  HistoryEvent,
  HistoryQuery,
  Key,
  Prompt,
  PromptGrant,
  Secret,
  SecretAdd,
  Settings,
  SettingsPatch,
  Task,
} from '../main/contract/approver';
export type { GrantSpec, GrantSpecInput } from '../main/contract/agent';
export type { Action, Decision, DecidedBy, Outcome, PolicyChoice, ProcessInfo, ProcessNode, Risk, RiskLevel, Scope, Source, SshInfo } from '../main/contract/common';

/** What `window.airlock` is: the ApproverService contract plus its push side, nothing more. */
export type AirlockBridge = ApproverService & {
  /** Calls `cb` with each notification's payload; returns the unsubscribe function. */
  onNotification(cb: (n: ApproverNotification) => void): () => void;
};

/** Names of the contract's methods (for adapters that must list them, e.g. the web transport). */
export type AirlockMethodName = ApproverMethod;
