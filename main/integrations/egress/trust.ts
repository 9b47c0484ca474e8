// Whom the proxy trusts upstream when it looks inside HTTPS: the system's CA store, as
// curl and git on this machine would. Tests add their own CA through
// AIRLOCK_EGRESS_TEST_CA, honoured only together with AIRLOCK_TEST=1 and always logged
// at start-up (docs/egress.md) — never silently.
import * as fs from 'node:fs';
import * as tls from 'node:tls';

const SYSTEM_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/ca-bundle.pem', '/etc/ssl/cert.pem', '/usr/local/etc/openssl@3/cert.pem'];

export interface Trust {
  /** PEM text of every CA trusted upstream. */
  upstream: string;
  /** Extra CA text added by the test-only setting (also put in each sandbox's bundle). */
  testExtra: string | null;
  /** Where the system store came from, for the start-up log. */
  systemSource: string;
}

export function loadTrust(env: NodeJS.ProcessEnv, log: (line: string) => void = () => undefined): Trust {
  let system = '';
  let systemSource = "Node's bundled Mozilla store (no system bundle found)";
  for (const f of SYSTEM_BUNDLES) {
    try {
      system = fs.readFileSync(f, 'utf8');
      systemSource = f;
      break;
    } catch {
      /* next */
    }
  }
  if (!system) system = tls.rootCertificates.join('\n') + '\n';
  let testExtra: string | null = null;
  if (env.AIRLOCK_EGRESS_TEST_CA) {
    if (env.AIRLOCK_TEST !== '1') {
      log(`egress: ignoring AIRLOCK_EGRESS_TEST_CA (${env.AIRLOCK_EGRESS_TEST_CA}): it is honoured only in tests (AIRLOCK_TEST=1)`);
    } else {
      testExtra = fs.readFileSync(env.AIRLOCK_EGRESS_TEST_CA, 'utf8');
      log(`egress: TEST SETTING: also trusting the CA in ${env.AIRLOCK_EGRESS_TEST_CA} upstream (AIRLOCK_EGRESS_TEST_CA)`);
    }
  }
  return { upstream: system + (testExtra ? '\n' + testExtra : ''), testExtra, systemSource };
}
