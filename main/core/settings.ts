// Defaults and merging of user settings. Reads are allowed (and recorded); everything
// that changes something asks, until the human grants otherwise.
import { Settings, type SettingsPatch } from '../contract/approver';

export const DEFAULT_SETTINGS: Settings = {
  promptTimeoutSec: 60,
  policy: { read: 'allow', write: 'ask', delete: 'ask', transfer: 'ask', execute: 'ask', sign: 'ask', other: 'ask' },
  upstreamAgent: null,
  notifications: true,
  startAtLogin: false,
  mcpToolActions: {},
  maxPendingPerTask: 20,
  maxPendingPerConnection: 50,
  maxPendingTotal: 100,
};

/** Stored values win over defaults; anything stored that no longer validates is ignored. */
export function resolveSettings(stored: Record<string, unknown>): Settings {
  const merged = { ...DEFAULT_SETTINGS, ...stored, policy: { ...DEFAULT_SETTINGS.policy, ...(stored.policy as object | undefined) } };
  const r = Settings.safeParse(merged);
  return r.success ? r.data : DEFAULT_SETTINGS;
}

export function applyPatch(current: Settings, patch: SettingsPatch): Settings {
  return Settings.parse({
    ...current,
    ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)),
    policy: { ...current.policy, ...(patch.policy ?? {}) },
  });
}
