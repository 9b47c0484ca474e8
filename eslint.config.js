// Lint = TypeScript rules + the layer boundaries of DESIGN.md, enforced the way Signal
// Desktop's `no-restricted-paths` zones and VS Code's `code-layering` rule do.
// Who may import whom (→ = may import):
//   contract → zod only            store → contract            core → contract, store
//   os → contract                  client → contract, os/paths  ssh → core ports, contract, os, store
//   api → core, store, os, ssh     integrations → client, contract, core/classify
//   cli → everything but electron  electron → api, core, contract (the ONLY importer of 'electron')
//   preload → contract types       app → preload types only
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const importX = require('eslint-plugin-import-x');
const globals = require('globals');

const main = (...dirs) => dirs.map((d) => `./main/${d}`);

module.exports = tseslint.config(
  { ignores: ['dist/**', 'dist-*/**', 'node_modules/**', 'native/build/**', 'test-results/**', 'bin/**', 'scripts/**', 'eslint.config.js', 'app/vite.config.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { 'import-x': importX },
    languageOptions: { globals: { ...globals.node } },
    settings: { 'import-x/resolver': { node: { extensions: ['.ts', '.tsx', '.js', '.json'] } } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
      'no-control-regex': 'off',
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            { target: './main/contract', from: './main', except: ['./contract'], message: 'main/contract is the shared vocabulary: it imports nothing of ours.' },
            { target: './main/store', from: main('core', 'api', 'cli', 'ssh', 'integrations', 'electron', 'client'), message: 'main/store is below the core.' },
            { target: './main/core', from: main('api', 'cli', 'ssh', 'integrations', 'electron', 'os', 'client'), message: 'main/core talks to the outside only through ports.ts.' },
            { target: './main/os', from: main('core', 'store', 'api', 'cli', 'ssh', 'integrations', 'electron', 'client'), message: 'main/os is a leaf.' },
            { target: './main/client', from: main('core', 'store', 'api', 'cli', 'ssh', 'integrations', 'electron'), message: 'the client library is used by agents: it must stay small.' },
            { target: './main/ssh', from: main('api', 'cli', 'integrations', 'electron'), message: 'main/ssh is wired in by main/api, not the other way round.' },
            { target: './main/api', from: main('cli', 'electron', 'integrations'), message: 'main/api is below the CLI and Electron.' },
            { target: './main/integrations', from: main('store', 'api', 'ssh', 'electron'), message: 'integrations run agent-side: they talk to the daemon only through main/client.' },
            { target: './main/integrations', from: './main/core', except: ['./classify', './ports.ts'], message: 'integrations may use only the shell classifier of the core.' },
            { target: './main/cli', from: './main/electron', message: 'the CLI runs under plain Node.' },
            { target: './preload', from: './main', except: ['./contract'], message: 'the preload exposes the contract and nothing else.' },
          ],
        },
      ],
    },
  },
  {
    files: ['main/**/*.ts', 'preload/**/*.ts', 'test/**/*.ts', 'app/**/*.ts', 'app/**/*.tsx'],
    ignores: ['main/electron/**', 'preload/**', 'test/e2e/electron*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: [{ name: 'electron', message: "Only main/electron (and the preload) may import 'electron'." }] },
      ],
    },
  },
  {
    files: ['main/**/*.ts', 'preload/**/*.ts', 'app/**/*.ts', 'app/**/*.tsx'],
    ignores: ['main/store/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'better-sqlite3', message: 'Only main/store may use SQLite: add a query there.' }] }],
    },
  },
  {
    files: ['app/**/*.ts', 'app/**/*.tsx'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'The renderer never touches Electron: use window.airlock.' }],
          patterns: [
            { group: ['**/preload', '**/preload/**'], allowTypeImports: true, message: 'app/ may import only TYPES from preload/.' },
            { group: ['**/main', '**/main/**', 'node:*'], message: 'app/ runs in the browser sandbox: no main/ code, no Node.' },
          ],
        },
      ],
    },
  },
);
