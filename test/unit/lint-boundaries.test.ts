// The layer boundaries of DESIGN.md are enforced by lint: prove each rule fires.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { REPO } from '../helpers/daemon';

type LintResult = { messages: { ruleId: string | null; message: string }[] };
type ESLintCtor = new (o: { cwd: string }) => { lintText(code: string, o: { filePath: string }): Promise<LintResult[]> };

const cases: { name: string; file: string; code: string; rule: RegExp | null }[] = [
  { name: "main/core may not import 'electron'", file: 'main/core/x.ts', code: "import { app } from 'electron';\nexport const a = app;\n", rule: /no-restricted-imports/ },
  { name: 'main/api may not import better-sqlite3', file: 'main/api/x.ts', code: "import D from 'better-sqlite3';\nexport const d = D;\n", rule: /no-restricted-imports/ },
  { name: 'main/core may not import main/api', file: 'main/core/x.ts', code: "import { startCore } from '../api/daemon';\nexport const s = startCore;\n", rule: /no-restricted-paths/ },
  { name: 'main/store may not import main/core', file: 'main/store/x.ts', code: "import { Broker } from '../core/broker';\nexport const b = Broker;\n", rule: /no-restricted-paths/ },
  { name: 'main/contract imports nothing of ours', file: 'main/contract/x.ts', code: "import { Store } from '../store';\nexport const s = Store;\n", rule: /no-restricted-paths/ },
  { name: 'integrations may not import the store', file: 'main/integrations/x.ts', code: "import { Store } from '../store';\nexport const s = Store;\n", rule: /no-restricted-paths/ },
  { name: 'app/ may not import main/', file: 'app/src/x.ts', code: "import { Broker } from '../../main/core/broker';\nexport const b = Broker;\n", rule: /no-restricted-imports/ },
  { name: 'app/ may not import preload/ at run time', file: 'app/src/x.ts', code: "import { x } from '../../preload/index';\nexport const y = x;\n", rule: /no-restricted-imports/ },
  { name: 'app/ may import types from preload/', file: 'app/src/x.ts', code: "import type { Prompt } from '../../preload/index';\nexport type P = Prompt;\n", rule: null },
  { name: 'shared/ imports nothing of ours', file: 'shared/x.ts', code: "import { LIMITS } from '../main/contract/constants';\nexport const l = LIMITS;\n", rule: /no-restricted/ },
  { name: 'shared/ uses no Node module (it runs in the renderer too)', file: 'shared/x.ts', code: "import * as fs from 'node:fs';\nexport const f = fs;\n", rule: /no-restricted-imports/ },
  { name: 'app/ may import shared/ at run time', file: 'app/src/x.ts', code: "import { visible } from '../../shared/display-text';\nexport const v = visible;\n", rule: null },
  { name: 'main/ may import shared/', file: 'main/cli/x.ts', code: "import { visible } from '../../shared/display-text';\nexport const v = visible;\n", rule: null },
  { name: 'main/electron may import electron', file: 'main/electron/x.ts', code: "import { app } from 'electron';\nexport const a = app;\n", rule: null },
  // The six imports issue 13 found passing: each must now fail.
  { name: 'main/ssh may not import the Broker class (only core/ports)', file: 'main/ssh/x.ts', code: "import { Broker } from '../core/broker';\nexport const b = Broker;\n", rule: /no-restricted-paths/ },
  { name: 'main/electron may not open the store', file: 'main/electron/x.ts', code: "import { Store } from '../store';\nexport const s = Store;\n", rule: /no-restricted-paths/ },
  { name: "main/electron may not reach into main/ssh's internals", file: 'main/electron/x.ts', code: "import { KeyStore } from '../ssh/key-store';\nexport const k = KeyStore;\n", rule: /no-restricted-paths/ },
  { name: 'main/store may not import main/os', file: 'main/store/x.ts', code: "import { airlockPaths } from '../os/paths';\nexport const p = airlockPaths;\n", rule: /no-restricted-paths/ },
  { name: 'main/core may not open sockets (node:net)', file: 'main/core/x.ts', code: "import * as net from 'node:net';\nexport const c = net.connect;\n", rule: /no-restricted-imports/ },
  { name: 'main/core may not read files (node:fs)', file: 'main/core/classify/x.ts', code: "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n", rule: /no-restricted-imports/ },
  { name: 'main/contract may not import node:fs', file: 'main/contract/x.ts', code: "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n", rule: /no-restricted-imports/ },
  { name: 'main/contract may not import node builtins without the prefix either', file: 'main/contract/x.ts', code: "import * as os from 'os';\nexport const h = os.homedir;\n", rule: /no-restricted-imports/ },
  { name: 'main/core may still not import better-sqlite3', file: 'main/core/x.ts', code: "import D from 'better-sqlite3';\nexport const d = D;\n", rule: /no-restricted-imports/ },
  { name: 'a main/api adapter may not import a concrete core part', file: 'main/api/x.ts', code: "import { PromptQueue } from '../core/prompt-queue';\nexport const q = PromptQueue;\n", rule: /no-restricted-paths/ },
  { name: 'main/electron may not import a concrete core part', file: 'main/electron/x.ts', code: "import { Broker } from '../core/broker';\nexport const b = Broker;\n", rule: /no-restricted-paths/ },
  { name: 'the composition root (api/daemon.ts) may build the core parts', file: 'main/api/daemon.ts', code: "import { PromptQueue } from '../core/prompt-queue';\nexport const q = PromptQueue;\n", rule: null },
  { name: 'a main/api adapter may use core/ports', file: 'main/api/x.ts', code: "import type { AgentSide } from '../core/ports';\nexport type A = AgentSide;\n", rule: null },
  { name: 'main/ssh may import core/ports', file: 'main/ssh/x.ts', code: "import type { KeyScope } from '../core/ports';\nexport type K = KeyScope;\n", rule: null },
  { name: "main/electron may import main/ssh's index", file: 'main/electron/x.ts', code: "import type { Sealer } from '../ssh';\nexport type S = Sealer;\n", rule: null },
  { name: 'main/core may import node:path', file: 'main/core/x.ts', code: "import * as path from 'node:path';\nexport const j = path.join;\n", rule: null },
  { name: 'main/store may import better-sqlite3', file: 'main/store/x.ts', code: "import D from 'better-sqlite3';\nexport const d = D;\n", rule: null },
];

test('lint enforces the layer boundaries', { timeout: 120_000 }, async (t) => {
  const { ESLint } = require(path.join(REPO, 'node_modules', 'eslint')) as { ESLint: ESLintCtor };
  const eslint = new ESLint({ cwd: REPO });
  for (const c of cases) {
    await t.test(c.name, async () => {
      const [r] = await eslint.lintText(c.code, { filePath: path.join(REPO, c.file) });
      const hits = r!.messages.filter((m) => /no-restricted/.test(m.ruleId ?? ''));
      if (c.rule) assert.ok(hits.some((m) => c.rule!.test(m.ruleId ?? '')), `expected ${c.rule} in ${JSON.stringify(r!.messages)}`);
      else assert.deepEqual(hits, []);
    });
  }
});
