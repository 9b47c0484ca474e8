// Where Electron's binary is, or why it is not there, in Airlock's words. Electron's own
// message ("Electron failed to install correctly, please delete node_modules/electron and
// try installing again") is wrong here: Airlock makes the download optional on purpose
// (package.json allowScripts + scripts/postinstall.mjs), so a missing binary usually means
// the download was skipped or impossible, and deleting node_modules does not help.
// CommonJS so the .mjs scripts and the compiled tests can both require it.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const WEB_MODE = 'npm run build && node bin/airlock serve --web';
const DOWNLOAD = 'npm run electron:download';

/**
 * @param {string} root the repository (the directory holding node_modules)
 * @returns {{ ok: true, bin: string, version: string } | { ok: false, reason: string, fix: string }}
 */
function electronBinary(root) {
  const dir = path.join(root, 'node_modules', 'electron');
  let version;
  try {
    version = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
  } catch {
    return { ok: false, reason: 'the electron package is not installed', fix: `run \`npm install\`; or use web mode: \`${WEB_MODE}\`` };
  }
  let rel = '';
  try {
    rel = fs.readFileSync(path.join(dir, 'path.txt'), 'utf8').trim();
  } catch {
    const why = process.env.ELECTRON_SKIP_BINARY_DOWNLOAD
      ? 'its download was skipped (ELECTRON_SKIP_BINARY_DOWNLOAD is set)'
      : 'its download was skipped or failed during `npm install` (no network to the download site?)';
    return { ok: false, reason: `Electron ${version}'s binary is not downloaded: ${why}`, fix: `\`${DOWNLOAD}\` where the network allows it; or use web mode: \`${WEB_MODE}\`` };
  }
  const bin = path.join(dir, 'dist', rel);
  if (!fs.existsSync(bin)) {
    return { ok: false, reason: `Electron ${version}'s binary is missing (${bin})`, fix: `\`${DOWNLOAD}\`; or use web mode: \`${WEB_MODE}\`` };
  }
  return { ok: true, bin, version };
}

module.exports = { electronBinary, WEB_MODE, DOWNLOAD };
