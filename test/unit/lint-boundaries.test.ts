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
  { name: 'main/electron may import electron', file: 'main/electron/x.ts', code: "import { app } from 'electron';\nexport const a = app;\n", rule: null },
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
