// SSH private keys sealed with the OS keychain (Keychain, DPAPI, libsecret/kwallet) through
// Electron's safeStorage, instead of the headless master-key file. The Sealer interface is
// main/ssh's; this file only adapts safeStorage to it.
import { safeStorage } from 'electron';
import type { Sealer } from '../ssh';

/** Null when the OS offers no real keychain (Linux "basic_text" backend): keep the file sealer. */
export function safeStorageSealer(): Sealer | null {
  if (!safeStorage.isEncryptionAvailable()) return null;
  if (process.platform === 'linux' && safeStorage.getSelectedStorageBackend() === 'basic_text') return null;
  return {
    kind: 'safe-storage',
    seal: (plain) => safeStorage.encryptString(plain.toString('base64')),
    open: (sealed) => Buffer.from(safeStorage.decryptString(sealed), 'base64'),
  };
}
