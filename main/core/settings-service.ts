// The settings in force: read once from the store, replaced as a whole on every change
// (readers always see one consistent Settings object).
import type { Settings, SettingsPatch } from '../contract/approver';
import type { Store } from '../store';
import { applyPatch, resolveSettings } from './settings';

export type SettingsStore = Pick<Store, 'readSettings' | 'writeSettings'>;

export class SettingsService {
  private current: Settings;

  constructor(private readonly store: SettingsStore) {
    this.current = resolveSettings(store.readSettings());
  }

  get settings(): Settings {
    return this.current;
  }

  /** What `update` would make of the patch, without keeping it (for checks made before). */
  preview(patch: SettingsPatch): Settings {
    return applyPatch(this.current, patch);
  }

  update(patch: SettingsPatch): Settings {
    const next = applyPatch(this.current, patch);
    this.store.writeSettings(next as unknown as Record<string, unknown>);
    this.current = next;
    return next;
  }
}
