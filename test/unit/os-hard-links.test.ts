// main/os/hard-links.ts through resolveRealPaths, on real files: a second name of a
// protected file is found (project files above the path, the home directory's, Airlock's
// own), an ordinary file costs nothing more, and a spent budget is said, never taken as "no".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempHome } from '../helpers/daemon';
import { resolveRealPaths } from '../../main/os/real-path';
import { LinkBudgetSpent, protectedOtherName } from '../../main/os/hard-links';

function project(): string {
  const root = fs.realpathSync(tempHome('al-hlu-'));
  fs.mkdirSync(path.join(root, 'p', '.git', 'hooks'), { recursive: true });
  fs.mkdirSync(path.join(root, 'p', 'a', 'b'), { recursive: true });
  fs.writeFileSync(path.join(root, 'p', '.git', 'config'), '[core]\n');
  fs.writeFileSync(path.join(root, 'p', '.git', 'hooks', 'post-checkout'), '#!/bin/sh\n');
  return root;
}

test('a hard link to the project\'s git config or hook, from the project or any directory under it, is named', () => {
  const root = project();
  const p = path.join(root, 'p');
  fs.linkSync(path.join(p, '.git', 'config'), path.join(p, 'notes.txt'));
  fs.linkSync(path.join(p, '.git', 'hooks', 'post-checkout'), path.join(p, 'a', 'b', 'x.sh'));
  const r = resolveRealPaths([path.join(p, 'notes.txt'), path.join(p, 'a', 'b', 'x.sh'), path.join(p, 'missing.txt')]);
  assert.equal(r.incomplete, null);
  assert.equal(r.hardLinks.get(path.join(p, 'notes.txt')), path.join(p, '.git', 'config'));
  assert.equal(r.hardLinks.get(path.join(p, 'a', 'b', 'x.sh')), path.join(p, '.git', 'hooks', 'post-checkout'));
  assert.equal(r.hardLinks.size, 2);
  // Anything else git reads from its directory: `.git/commondir` names the repository whose config git obeys.
  fs.writeFileSync(path.join(p, '.git', 'commondir'), '.\n');
  fs.linkSync(path.join(p, '.git', 'commondir'), path.join(p, 'a', 'cd.txt'));
  assert.equal(resolveRealPaths([path.join(p, 'a', 'cd.txt')]).hardLinks.get(path.join(p, 'a', 'cd.txt')), path.join(p, '.git', 'commondir'));
});

test('a hard link to a file in the home directory (~/.bashrc, ~/.ssh/*) is named, through a symbolic link on the way too', () => {
  const root = project();
  const home = path.join(root, 'home');
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
  fs.writeFileSync(path.join(home, '.bashrc'), 'x');
  fs.writeFileSync(path.join(home, '.ssh', 'id_work'), 'key');
  fs.linkSync(path.join(home, '.bashrc'), path.join(root, 'p', 'rc'));
  fs.linkSync(path.join(home, '.ssh', 'id_work'), path.join(root, 'p', 'k'));
  fs.symlinkSync(path.join(root, 'p'), path.join(root, 'via'));
  const saved = process.env.HOME;
  process.env.HOME = home;
  try {
    const r = resolveRealPaths([path.join(root, 'via', 'rc'), path.join(root, 'p', 'k')]);
    assert.equal(r.hardLinks.get(path.join(root, 'via', 'rc')), path.join(home, '.bashrc'));
    assert.equal(r.hardLinks.get(path.join(root, 'p', 'k')), path.join(home, '.ssh', 'id_work'));
  } finally {
    process.env.HOME = saved;
  }
});

test("a hard link to one of Airlock's own files (given by the daemon) is named; the file itself is not its own link", () => {
  const root = project();
  const db = path.join(root, 'airlock.db');
  fs.writeFileSync(db, 'sqlite');
  fs.linkSync(db, path.join(root, 'p', 'data.bin'));
  const r = resolveRealPaths([path.join(root, 'p', 'data.bin'), db], undefined, [db]);
  assert.equal(r.hardLinks.get(path.join(root, 'p', 'data.bin')), db);
  assert.equal(r.hardLinks.has(db), false);
});

test('an ordinary file, or two names of an ordinary file, are not hard links to anything protected; a file with one name costs no look', () => {
  const root = project();
  const p = path.join(root, 'p');
  fs.writeFileSync(path.join(p, 'a.txt'), 'a');
  fs.linkSync(path.join(p, 'a.txt'), path.join(p, 'b.txt'));
  fs.writeFileSync(path.join(p, 'c.txt'), 'c');
  const r = resolveRealPaths([path.join(p, 'b.txt'), path.join(p, 'c.txt')]);
  assert.equal(r.hardLinks.size, 0);
  const one = { steps: 5, deadline: Date.now() + 10_000 };
  assert.equal(protectedOtherName(path.join(p, 'c.txt'), fs.lstatSync(path.join(p, 'c.txt')), one), null);
  assert.equal(one.steps, 5, 'nothing was looked at for a file with one name');
  const dir = { steps: 5, deadline: Date.now() + 10_000 };
  assert.equal(protectedOtherName(p, fs.lstatSync(p), dir), null, 'a directory is not a hard link');
  assert.equal(dir.steps, 5);
});

test('a spent budget throws (never "not protected"), and resolveRealPaths says the request could not be checked', () => {
  const root = project();
  const p = path.join(root, 'p');
  fs.writeFileSync(path.join(p, 'a.txt'), 'a');
  fs.linkSync(path.join(p, 'a.txt'), path.join(p, 'b.txt'));
  assert.throws(() => protectedOtherName(path.join(p, 'b.txt'), fs.lstatSync(path.join(p, 'b.txt')), { steps: 3, deadline: Date.now() + 10_000 }), LinkBudgetSpent);
  assert.throws(() => protectedOtherName(path.join(p, 'b.txt'), fs.lstatSync(path.join(p, 'b.txt')), { steps: 1e6, deadline: Date.now() - 1 }), LinkBudgetSpent);
  const r = resolveRealPaths([path.join(p, 'b.txt')], -1);
  assert.match(r.incomplete ?? '', /took too long/);
});

test('many hard-linked files in one request (a pnpm node_modules) share the look: twenty are checked within the budget', () => {
  const root = project();
  const store = path.join(root, 'store');
  const mods = path.join(root, 'p', 'node_modules', '.pnpm', 'x@1.0.0', 'node_modules', 'x');
  fs.mkdirSync(store);
  fs.mkdirSync(mods, { recursive: true });
  const files: string[] = [];
  for (let i = 0; i < 20; i++) {
    fs.writeFileSync(path.join(store, `f${i}`), String(i));
    fs.linkSync(path.join(store, `f${i}`), path.join(mods, `f${i}.js`));
    files.push(path.join(mods, `f${i}.js`));
  }
  const r = resolveRealPaths(files);
  assert.equal(r.incomplete, null, 'twenty hard-linked files did not spend the budget');
  assert.equal(r.hardLinks.size, 0);
});

test("a hard link to another HOME's global config (.claude.json beside the .claude the hook reported) is named", () => {
  const root = project();
  const other = path.join(root, 'other-home');
  fs.mkdirSync(path.join(other, '.claude'), { recursive: true });
  fs.writeFileSync(path.join(other, '.claude.json'), '{"mcpServers":{}}\n');
  const linked = path.join(root, 'p', 'a', 'cfg.json');
  fs.linkSync(path.join(other, '.claude.json'), linked);
  const st = fs.lstatSync(linked);
  const budget = () => ({ steps: 2000, deadline: Date.now() + 5000 });
  assert.equal(protectedOtherName(linked, st, budget(), [], [path.join(other, '.claude')]), path.join(other, '.claude.json'));
  // Control: without that home's .claude known, nothing names it.
  assert.equal(protectedOtherName(linked, st, budget(), [], []), null);
});
