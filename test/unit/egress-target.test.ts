// Destination spelling and placeholder handling of the egress proxy, without a network.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalAddress, localAddressKind, parseAbsoluteUrl, parseAuthority } from '../../main/integrations/egress/target';
import { injectHeader, placeholdersIn, ReplaceStream, StreamScanner, type TaskSecret } from '../../main/integrations/egress/placeholders';
import { secretHostMatches } from '../../main/integrations/egress/secret-store';
import { bwrapArgs, type PathKind } from '../../main/integrations/exec/sandbox';

describe('egress destinations', () => {
  test('one spelling per destination: case, trailing dot, IPv4 in hex or as one number, IPv6 forms', () => {
    assert.equal(parseAuthority('EXAMPLE.com.:443')?.resource, 'example.com:443');
    assert.equal(parseAuthority('0x7f.1:80')?.resource, '127.0.0.1:80');
    assert.equal(parseAuthority('2130706433:22')?.resource, '127.0.0.1:22');
    assert.equal(parseAuthority('[0:0::1]:443')?.resource, '[::1]:443');
    // IPv4-mapped IPv6 is the IPv4 address (a deny on 127.0.0.1:* must cover it); other v6 forms stay v6.
    assert.equal(parseAuthority('[::ffff:127.0.0.1]:80')?.resource, '127.0.0.1:80');
    assert.equal(parseAuthority('[0:0:0:0:0:FFFF:7f00:1]:80')?.resource, '127.0.0.1:80');
    assert.equal(parseAbsoluteUrl('http://[::ffff:a9fe:a9fe]/latest')?.resource, '169.254.169.254:80');
    assert.equal(parseAuthority('[64:ff9b::127.0.0.1]:80')?.resource, '[64:ff9b::7f00:1]:80');
    // What DNS answers is spelled the same way (the rebinding prompt's resource).
    assert.equal(canonicalAddress('::ffff:127.0.0.1'), '127.0.0.1');
    assert.equal(canonicalAddress('::FFFF:7f00:1'), '127.0.0.1');
    assert.equal(canonicalAddress('0:0:0:0:0:0:0:1'), '::1');
    assert.equal(canonicalAddress('10.1.2.3'), '10.1.2.3');
    assert.equal(canonicalAddress('fe80::1%eth0'), 'fe80::1%eth0');
    assert.equal(parseAuthority('ex%41mple.com:443')?.resource, 'example.com:443');
    assert.equal(parseAbsoluteUrl('http://Example.COM/a?b')?.resource, 'example.com:80');
    assert.equal(parseAbsoluteUrl('http://example.com:8080/a?b')?.path, '/a?b');
  });

  test('what is not a plain host:port is refused: userinfo, paths, missing or bad ports, odd characters', () => {
    for (const bad of ['example.com', 'a@example.com:443', 'example.com:0', 'example.com:65536', 'example.com:443/x', 'exa mple.com:443', 'example.com:+443', ':443', '-bad.com:443', 'evil.com#.good.com:443']) {
      assert.equal(parseAuthority(bad), null, bad);
    }
    assert.equal(parseAbsoluteUrl('https://example.com/'), null);
    assert.equal(parseAbsoluteUrl('http://user:pw@example.com/'), null);
  });

  test('addresses of this machine and the local network are named (risk high in the prompt)', () => {
    assert.match(localAddressKind('127.0.0.1') ?? '', /loopback/);
    assert.match(localAddressKind('::ffff:127.0.0.1') ?? '', /loopback/);
    assert.match(localAddressKind('169.254.169.254') ?? '', /metadata/);
    assert.match(localAddressKind('192.168.1.2') ?? '', /local network/);
    assert.equal(localAddressKind('140.82.112.6'), null);
  });

  test('IPv4 inside IPv6 is the IPv4 address it reaches, in the hex form the URL parser writes; multicast and site-local are local too', () => {
    for (const [target, kind] of [
      ['[::ffff:127.0.0.1]:80', /loopback/],
      ['[::ffff:169.254.169.254]:80', /metadata/],
      ['[::ffff:10.1.2.3]:80', /local network/],
      ['[::ffff:0.0.0.0]:80', /0\.0\.0\.0/],
      ['[64:ff9b::127.0.0.1]:80', /loopback/],
      ['[::127.0.0.1]:80', /loopback/],
      ['[fec0::1]:80', /site-local/],
      ['[ff02::1]:80', /multicast/],
      ['224.0.0.251:5353', /multicast/],
      ['255.255.255.255:9', /broadcast/],
    ] as const) {
      const t = parseAuthority(target);
      assert.ok(t, target);
      assert.match(localAddressKind(t.host) ?? 'not local', kind, `${target} (${t.host})`);
    }
    assert.equal(localAddressKind(parseAuthority('[::ffff:140.82.112.6]:443')!.host), null);
    assert.equal(localAddressKind('2606:4700::6810:84e5'), null);
  });

  test('secret hosts: exact names and *.domain (not the apex, not lookalikes)', () => {
    assert.ok(secretHostMatches('api.github.com', 'api.github.com'));
    assert.ok(!secretHostMatches('api.github.com', 'api.github.com.evil.com'));
    assert.ok(secretHostMatches('*.github.com', 'api.github.com'));
    assert.ok(!secretHostMatches('*.github.com', 'github.com'));
    assert.ok(!secretHostMatches('*.github.com', 'evilgithub.com'));
  });
});

describe('placeholders', () => {
  const s: TaskSecret = { name: 'TOKEN', hosts: ['api.x'], headers: [], value: 'REAL', placeholder: 'airlock-placeholder-TOKEN-abc' };
  test('injected in a header and inside Basic credentials; found in both', () => {
    assert.deepEqual(injectHeader(`Bearer ${s.placeholder}`, [s]), { value: 'Bearer REAL', injected: ['TOKEN'], echoes: [] });
    const basic = `Basic ${Buffer.from(`x-access-token:${s.placeholder}`).toString('base64')}`;
    const r = injectHeader(basic, [s]);
    assert.equal(Buffer.from(r.value.slice(6), 'base64').toString(), 'x-access-token:REAL');
    // The credential as sent upstream, paired with the one the sandbox sent: an echo of it is swapped back.
    assert.deepEqual(r.echoes, [{ from: r.value.slice(6), to: basic.slice(6) }]);
    assert.deepEqual(placeholdersIn(basic, [s]), ['TOKEN']);
  });

  test('found across chunk boundaries; the value swapped back across chunk boundaries', async () => {
    const scan = new StreamScanner([{ name: 'TOKEN', text: s.placeholder }]);
    assert.deepEqual(scan.feed(Buffer.from('xx airlock-placeholder-TO')), []);
    assert.deepEqual(scan.feed(Buffer.from('KEN-abc yy')), ['TOKEN']);
    const t = new ReplaceStream([{ from: Buffer.from('REAL'), to: Buffer.from(s.placeholder) }]);
    const out: Buffer[] = [];
    t.on('data', (c: Buffer) => out.push(c));
    const done = new Promise((r) => t.on('end', r));
    t.write('echo RE');
    t.write('AL and REAL');
    t.end();
    await done;
    assert.equal(Buffer.concat(out).toString(), `echo ${s.placeholder} and ${s.placeholder}`);
  });
});

describe('bwrap arguments with an egress proxy', () => {
  const probe = (p: string): PathKind => (p.startsWith('/run/airlock/') || p === '/usr' ? { kind: p === '/usr' ? 'dir' : 'file' } : { kind: 'missing' });
  test('the egress socket and its files are bound, the CA variables and placeholders set, and still no --share-net', () => {
    const a = bwrapArgs(
      {
        cwd: '/home/u/p',
        home: '/home/u',
        network: true,
        task: null,
        hide: [],
        readOnly: [],
        egress: { sock: '/run/airlock/tasks/t1/egress.sock', caBundle: '/run/airlock/tasks/t1/egress-ca.pem', nodePreload: '/run/airlock/tasks/t1/egress-node.cjs', placeholders: { GITHUB_TOKEN: 'airlock-placeholder-x' } },
      },
      probe,
    );
    assert.ok(!a.includes('--share-net'));
    const s = a.join(' ');
    assert.match(s, /--bind \/run\/airlock\/tasks\/t1\/egress.sock \/run\/airlock\/tasks\/t1\/egress.sock/);
    assert.match(s, /--ro-bind \/run\/airlock\/tasks\/t1\/egress-ca.pem/);
    for (const v of ['SSL_CERT_FILE', 'NODE_EXTRA_CA_CERTS', 'REQUESTS_CA_BUNDLE', 'GIT_SSL_CAINFO', 'CURL_CA_BUNDLE']) assert.match(s, new RegExp(`--setenv ${v} /run/airlock/tasks/t1/egress-ca.pem`));
    assert.match(s, /--setenv GITHUB_TOKEN airlock-placeholder-x/);
    // With the task's socket directory bound (read-only), its egress files come through it.
    const dirProbe = (p: string): PathKind => (p === '/run/airlock/tasks/t1' ? { kind: 'dir' } : probe(p));
    const withDir = bwrapArgs(
      { cwd: '/home/u/p', home: '/home/u', task: { id: 't1', dir: '/run/airlock/tasks/t1' }, hide: [], readOnly: [], egress: { sock: '/run/airlock/tasks/t1/egress.sock', caBundle: '/run/airlock/tasks/t1/egress-ca.pem', nodePreload: null, placeholders: {} } },
      dirProbe,
    ).join(' ');
    assert.match(withDir, /--ro-bind \/run\/airlock\/tasks\/t1 \/run\/airlock\/tasks\/t1/);
    assert.doesNotMatch(withDir, /--bind \/run\/airlock\/tasks\/t1\/egress.sock/);
    assert.match(withDir, /--setenv AIRLOCK_EGRESS_SOCK \/run\/airlock\/tasks\/t1\/egress.sock/);
  });
});
