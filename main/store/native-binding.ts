// Which compiled better-sqlite3 to load. Under plain Node: the one in node_modules. Under
// Electron (`npm start`): the copy built for Electron's ABI by scripts/electron-native.mjs,
// so one checkout serves the CLI, the tests and the tray app without rebuilding back and
// forth. Packaged apps have node_modules rebuilt for Electron by electron-builder.
import * as fs from 'node:fs';
import * as path from 'node:path';

export function sqliteNativeBinding(): string | undefined {
  if (!process.versions.electron) return undefined;
  const devCopy = path.join(__dirname, '..', '..', '..', 'native', 'electron', 'better_sqlite3.node');
  return fs.existsSync(devCopy) ? devCopy : undefined;
}
