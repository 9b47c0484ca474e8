// "Start at login". macOS and Windows have app.setLoginItemSettings; Linux desktops use
// an XDG autostart entry (~/.config/autostart), which Electron does not manage.
import { app } from 'electron';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const DESKTOP_FILE = 'airlock.desktop';

function autostartDir(): string {
  return path.join(process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'autostart');
}

export function applyStartAtLogin(enabled: boolean): void {
  if (process.platform === 'darwin' || process.platform === 'win32') {
    app.setLoginItemSettings({ openAtLogin: enabled, args: ['--hidden'] });
    return;
  }
  const file = path.join(autostartDir(), DESKTOP_FILE);
  if (!enabled) {
    fs.rmSync(file, { force: true });
    return;
  }
  // An AppImage moves with its file: APPIMAGE is its real path; otherwise the binary itself.
  const exec = process.env.APPIMAGE || process.execPath;
  const quoted = `"${exec.replace(/(["`$\\])/g, '\\$1')}"`;
  fs.mkdirSync(autostartDir(), { recursive: true });
  fs.writeFileSync(
    file,
    ['[Desktop Entry]', 'Type=Application', 'Name=Airlock', 'Comment=Human-in-the-loop for AI agents', `Exec=${quoted} --hidden`, 'X-GNOME-Autostart-enabled=true', ''].join('\n'),
    { mode: 0o644 },
  );
}
