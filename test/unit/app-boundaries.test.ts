// Layering of the human side (DESIGN.md "Boundaries"): app/ imports only types from
// preload/ (and nothing from main/), only main/electron imports 'electron', and the
// preload uses nothing of Electron but contextBridge and ipcRenderer.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { REPO } from '../helpers/daemon';

function sources(dir: string, exts = /\.(ts|tsx)$/): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(p, exts));
    else if (exts.test(e.name)) out.push(p);
  }
  return out;
}

/** Every import/export-from statement: whether it is type-only, and what it names. */
function imports(file: string): { typeOnly: boolean; from: string }[] {
  const text = fs.readFileSync(file, 'utf8');
  const re = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm;
  const out: { typeOnly: boolean; from: string }[] = [];
  for (const m of text.matchAll(re)) out.push({ typeOnly: Boolean(m[2]), from: m[3]! });
  return out;
}

test('app/ imports only types from preload/ and nothing from main/', () => {
  const files = sources(path.join(REPO, 'app', 'src'));
  assert.ok(files.length > 10);
  for (const f of files) {
    for (const i of imports(f)) {
      const target = i.from.startsWith('.') ? path.resolve(path.dirname(f), i.from) : i.from;
      const rel = path.relative(REPO, target);
      if (rel.startsWith('main' + path.sep) || rel === 'main') assert.fail(`${path.relative(REPO, f)} imports ${i.from} (main/ is off limits to the renderer)`);
      if (rel.startsWith('preload' + path.sep)) assert.ok(i.typeOnly, `${path.relative(REPO, f)} imports ${i.from} at runtime (only \`import type\` from preload/)`);
      assert.notEqual(i.from, 'electron', `${path.relative(REPO, f)} imports electron`);
    }
  }
});

test("only main/electron imports 'electron' (and the preload, sandboxed)", () => {
  const files = [...sources(path.join(REPO, 'main')), ...sources(path.join(REPO, 'preload'))];
  for (const f of files) {
    const rel = path.relative(REPO, f);
    const usesElectron = imports(f).some((i) => i.from === 'electron' && !i.typeOnly);
    if (rel.startsWith(path.join('main', 'electron') + path.sep) || rel === path.join('preload', 'index.ts')) continue;
    assert.equal(usesElectron, false, `${rel} imports electron`);
  }
});

test('the preload hands the page no raw ipcRenderer', () => {
  const text = fs.readFileSync(path.join(REPO, 'preload', 'index.ts'), 'utf8');
  const exposed = [...text.matchAll(/exposeInMainWorld\(\s*'([^']+)'\s*,\s*([\w.]+\(\))\s*\)/g)].map((m) => [m[1], m[2]!.trim()]);
  assert.deepEqual(exposed, [['airlock', 'buildBridge()']]);
  assert.doesNotMatch(text.replace(/\/\/.*$/gm, ''), /exposeInMainWorld\([^)]*ipcRenderer/);
});
