// electron-builder.yml is valid for the installed electron-builder (its own schema
// validator, no packaging run) and flips the fuses the security checklist asks for.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { REPO } from '../helpers/daemon';

type Validate = (config: object, logger: object) => Promise<void>;

function loadTools(): { validate: Validate; logger: object; parseYaml: (s: string) => Record<string, unknown> } | string {
  try {
    // Transitive dependencies of electron-builder: present whenever electron-builder is.
    const { validateConfiguration } = require('app-builder-lib/out/util/config/config') as { validateConfiguration: Validate };
    const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => object };
    const yaml = require('js-yaml') as { load(s: string): unknown };
    return { validate: validateConfiguration, logger: new DebugLogger(false), parseYaml: (s) => yaml.load(s) as Record<string, unknown> };
  } catch (e) {
    return `electron-builder's modules are not installed: ${(e as Error).message.split('\n')[0]}`;
  }
}

test('electron-builder.yml: valid, all four targets, fuses flipped', async (t) => {
  const tools = loadTools();
  if (typeof tools === 'string') {
    t.skip(tools);
    return;
  }
  const config = tools.parseYaml(fs.readFileSync(path.join(REPO, 'electron-builder.yml'), 'utf8'));
  await tools.validate(config, tools.logger);
  const targets = JSON.stringify([config.linux, config.mac, config.win]);
  for (const target of ['AppImage', 'deb', 'dmg', 'nsis']) assert.ok(targets.includes(`"${target}"`), `${target} target`);
  assert.deepEqual(config.electronFuses, {
    runAsNode: false,
    enableCookieEncryption: true,
    enableNodeOptionsEnvironmentVariable: false,
    enableNodeCliInspectArguments: false,
    enableEmbeddedAsarIntegrityValidation: true,
    onlyLoadAppFromAsar: true,
    loadBrowserProcessSpecificV8Snapshot: false,
    grantFileProtocolExtraPrivileges: false,
  });
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { main: string; scripts: Record<string, string> };
  assert.equal(pkg.main, 'dist/main/electron/main.js');
  assert.match(pkg.scripts.dist ?? '', /electron-builder --config electron-builder\.yml/);
});
