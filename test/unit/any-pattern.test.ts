// The one-scan check of risk.ts's pattern lists (main/core/any-pattern.ts, issue 15) must say
// "none" exactly when every pattern of the list fails: a path it wrongly called clean would
// skip the rules that make a hook, a secret or Airlock's own settings risky.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as os from 'node:os';
import { anyPattern } from '../../main/core/any-pattern';
import { RISK_PATTERN_LISTS, holdsSecrets, runsCodeLater, sensitivePart } from '../../main/core/risk';

/** Paths made of the names the lists look for (and near misses), in every place of a path. */
function corpus(): string[] {
  const names = [
    '.git', 'hooks', 'config', 'info', 'exclude', 'commondir', 'modules', '.ssh', 'id_rsa', 'id_ed25519', 'authorized_keys', '.env', '.env.local',
    '.envrc', '.aws', 'credentials', 'Credentials.JSON', 'secret', 'secrets.yaml', 'key.pem', 'cert.PFX', '.gnupg', '.netrc', '.claude', '.Claude',
    'settings.json', 'Settings.Local.JSON', 'commands', 'skills', '.mcp.json', '.claude.json', '.config', 'gcloud', 'gh', 'git', 'attributes', 'fish',
    'config.fish', 'autostart', 'systemd', 'user', '.github', 'workflows', '.gitlab-ci.yml', 'Jenkinsfile', 'package.json', '.bashrc', '.zshrc',
    '.profile', 'crontab', 'cron.d', 'etc', 'proc', 'self', 'environ', 'root', 'cwd', 'fd', 'mem', '.local', 'share', 'airlock', 'keys', 'Library',
    'Application Support', 'Airlock', 'ClaudeCode', 'managed-settings.json', 'claude-code', '.yarnrc.yml', '.yarn', 'releases', '.pnpmfile.cjs',
    'Makefile', '.npmrc', 'rust-toolchain', 'rust-toolchain.toml', '.cargo', 'config.toml', '.tool-versions', 'mise.toml', '.mise.toml', '.bash_logout', '.tmux.conf', 'tmux', '.lesskey', 'lesskey', 'environment.d', 'conf.d', 'nvim', '.emacs.d', 'init.el', '.gradle', 'init.d', '.gdbinit', '.xprofile', 'src', 'index.ts', 'README.md', 'bench', 'x', '.gitignore', 'gitconfig', 'ssh', 'env', 'package.json.bak',
  ];
  const out = new Set<string>(['', '/', '~', '~/', `${os.homedir()}/.claude/settings.json`, `${os.homedir()}/.claude.json`, '/proc/1/environ', '/etc/rc.local']);
  // Deterministic: the Park–Miller sequence (products stay exact in a double), no Math.random.
  let seed = 12345;
  const next = (n: number) => {
    seed = (seed * 48271) % 2147483647;
    return seed % n;
  };
  for (let i = 0; i < 20_000; i++) {
    const parts = Array.from({ length: 1 + next(5) }, () => names[next(names.length)]!);
    const lead = ['/', '', '~/', '/home/u/', '/proc/42/'][next(5)]!;
    out.add(lead + parts.join('/') + (next(6) === 0 ? '/' : ''));
  }
  return [...out];
}

test('the one-scan check agrees with trying every pattern, for each of risk.ts\'s lists, on 20,000 paths', () => {
  const paths = corpus();
  for (const [name, list] of Object.entries(RISK_PATTERN_LISTS)) {
    const any = anyPattern(list);
    let hits = 0;
    for (const p of paths) {
      const expected = list.some((x) => x.test.test(p));
      assert.equal(any(p), expected, `${name}: ${JSON.stringify(p)}`);
      if (expected) hits++;
    }
    // The corpus reaches both answers for every list (else this test could not fail).
    assert.ok(hits > 100 && hits < paths.length - 100, `${name}: ${hits} of ${paths.length} paths match`);
  }
});

test('risk answers are unchanged on a path that matches one pattern only case-insensitively, and on clean paths', () => {
  assert.equal(runsCodeLater('/work/p/.Claude/Settings.Local.JSON'), "Claude Code's settings (its hooks, including Airlock's)");
  assert.equal(holdsSecrets('/work/p/deploy/cert.PFX'), 'a private key file');
  assert.equal(sensitivePart('/work/p/.git/hooks/pre-commit'), '.git/hooks');
  assert.equal(sensitivePart('/work/p/.git/info/exclude'), null);
  assert.equal(sensitivePart('/work/p/src/index.ts'), null);
  assert.equal(runsCodeLater('/bench/1'), null);
});

test('a list whose patterns refer to their own groups, or keep state, is tried one by one (a joined regex would be wrong)', () => {
  const doubled = [{ test: /(ab)\1/ }, { test: /(x)y/ }];
  const any = anyPattern(doubled);
  assert.equal(any('abab'), true);
  assert.equal(any('ab'), false);
  // Joined as /(?:(ab)\1)|(?:(x)y)/ the \1 would still work here, but /(x)\1|(ab)\2/-style
  // renumbering is exactly what is refused: check the fallback answers like some().
  const named = [{ test: /(?<q>['"])z\k<q>/ }, { test: /(?<q>w)/ }];
  const anyNamed = anyPattern(named);
  for (const s of ['"z"', "'z'", '"z\'', 'w', 'v']) assert.equal(anyNamed(s), named.some((x) => x.test.test(s)), s);
  const sticky = [{ test: /a/g }, { test: /b/ }];
  const anySticky = anyPattern(sticky);
  assert.equal(anySticky('xb'), true);
  assert.equal(anySticky('xa'), true);
});
