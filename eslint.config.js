// Lint = TypeScript rules + the layer boundaries of DESIGN.md, enforced the way Signal
// Desktop's `no-restricted-paths` zones and VS Code's `code-layering` rule do.
// Who may import whom (→ = may import):
//   contract → zod only (no node:*) store → contract (not os)   core → contract, store; no network,
//   os → contract                  client → contract, os/paths    files or processes (ports.ts)
//   ssh → core/ports only, contract, os, store
//   api → core, store, os, ssh     integrations → client, contract, core/classify
//   cli → everything but electron  electron → api, core, contract, ssh's index (types) — the ONLY
//                                  importer of 'electron'; never store, os, cli, integrations, client
//   preload → contract types       app → preload types only, shared
//   shared → nothing (pure code both main/ and app/ run: no Node, no DOM, no deps)
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');
const importX = require('eslint-plugin-import-x');
const globals = require('globals');

const main = (...dirs) => dirs.map((d) => `./main/${d}`);
const SQLITE = { name: 'better-sqlite3', message: 'Only main/store may use SQLite: add a query there.' };
const NODE_BUILTINS = ['fs', 'fs/promises', 'net', 'child_process', 'http', 'https', 'http2', 'tls', 'dgram', 'dns', 'worker_threads', 'os', 'path', 'crypto', 'stream', 'util'];
const CORE_IO = [
  ...['fs', 'fs/promises', 'net', 'child_process', 'http', 'https', 'http2', 'tls', 'dgram', 'dns', 'worker_threads', 'cluster'].flatMap((m) => [m, `node:${m}`]),
  'ws',
  'ssh2',
];

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
            { target: './main/store', from: main('core', 'api', 'cli', 'ssh', 'integrations', 'electron', 'client', 'os'), message: 'main/store is below the core and knows no platform paths: it is given its file.' },
            { target: './main/core', from: main('api', 'cli', 'ssh', 'integrations', 'electron', 'os', 'client'), message: 'main/core talks to the outside only through ports.ts.' },
            { target: './main/os', from: main('core', 'store', 'api', 'cli', 'ssh', 'integrations', 'electron', 'client'), message: 'main/os is a leaf.' },
            { target: './main/client', from: main('core', 'store', 'api', 'cli', 'ssh', 'integrations', 'electron'), message: 'the client library is used by agents: it must stay small.' },
            { target: './main/ssh', from: main('api', 'cli', 'integrations', 'electron'), message: 'main/ssh is wired in by main/api, not the other way round.' },
            { target: './main/ssh', from: './main/core', except: ['./ports.ts'], message: 'main/ssh reaches the core only through core/ports.ts (never the Broker class).' },
            { target: './main/electron', from: main('store', 'os', 'cli', 'integrations', 'client'), message: 'main/electron wires the core through main/api and the ApproverService; it never opens the store itself.' },
            { target: './main/electron', from: './main/ssh', except: ['./index.ts'], message: 'main/electron may use only what main/ssh exports from its index.' },
            { target: './main/api', from: main('cli', 'electron'), message: 'main/api is below the CLI and Electron.' },
            // Adapters see the core only through its ports and the ApproverService; only the composition root builds the concrete parts.
            { target: './main/api/!(daemon).ts', from: './main/core', except: ['./ports.ts', './approver-service.ts'], message: 'main/api adapters reach the core only through core/ports.ts and the ApproverService (only api/daemon.ts builds concrete core parts).' },
            { target: './main/electron', from: './main/core', except: ['./ports.ts'], message: 'main/electron reaches the core only through core/ports.ts and what api/daemon.ts returns.' },
            // Two integrations run inside the daemon (api wires them in): the egress proxy, and the
            // Claude Code hook's decision (request.sock `hook.claudeCode`; the hook process only relays).
            { target: './main/api', from: './main/integrations', except: ['./egress', './claude-code/hook-service.ts'], message: 'main/api is below the integrations, except the daemon-side egress proxy and the Claude Code hook service.' },
            { target: './main/integrations', from: main('store', 'api', 'ssh', 'electron'), message: 'integrations run agent-side: they talk to the daemon only through main/client.' },
            { target: './main/integrations', from: './main/core', except: ['./classify', './ports.ts'], message: 'integrations may use only the shell classifier of the core.' },
            { target: './main/cli', from: './main/electron', message: 'the CLI runs under plain Node.' },
            { target: './preload', from: './main', except: ['./contract'], message: 'the preload exposes the contract and nothing else.' },
            { target: './shared', from: ['./main', './app', './preload', './test'], message: 'shared/ runs in main/ and in the renderer: it imports nothing of ours.' },
          ],
        },
      ],
    },
  },
  {
    files: ['main/**/*.ts', 'preload/**/*.ts', 'test/**/*.ts', 'app/**/*.ts', 'app/**/*.tsx'],
    // test/unit/electron-*: type-checked against Electron's own types (its module is a stand-in there).
    ignores: ['main/electron/**', 'preload/**', 'test/e2e/electron*.ts', 'test/unit/electron-*.ts'],
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
      'no-restricted-imports': ['error', { paths: [SQLITE] }],
    },
  },
  {
    // The core decides; it does not do I/O. Files, sockets and processes reach it through
    // the interfaces in core/ports.ts, implemented in main/os, main/api and main/ssh.
    files: ['main/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [SQLITE, ...CORE_IO.map((name) => ({ name, message: 'main/core does no I/O: add a port in core/ports.ts and implement it outside the core.' }))] }],
    },
  },
  {
    files: ['main/contract/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [SQLITE], patterns: [{ group: ['node:*', ...NODE_BUILTINS], message: 'main/contract is pure vocabulary (zod only): it runs in the preload and the hook too.' }] }],
    },
  },
  {
    // shared/ is bundled into the renderer and run by Node: no Node modules, no packages.
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['*'], message: 'shared/ imports nothing: it runs in Node and in the browser.' }] }],
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
