// The per-task certificate authority that lets the proxy look inside HTTPS to the hosts a
// task's secrets belong to (and only those). Its private key lives in the daemon's memory
// for the life of the task and is never written anywhere; the sandbox gets only the CA
// certificate (in the bundle its clients are pointed at). Leaf certificates are made per
// host on first use and cached. ECDSA P-256: a key takes ~1 ms, so a task starts fast.
import * as crypto from 'node:crypto';
import * as net from 'node:net';
import * as tls from 'node:tls';
// tsyringe (under @peculiar/x509) needs the Reflect metadata API before it loads.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(crypto.webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

/** The key pair type @peculiar/x509 takes (WebCrypto's; this project compiles without the DOM lib). */
type KeyPair = Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[0]['keys'];

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 24 * 3600 * 1000;

function pemKey(der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN PRIVATE KEY-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END PRIVATE KEY-----\n`;
}

export class TaskCa {
  private readonly contexts = new Map<string, Promise<tls.SecureContext>>();

  private constructor(
    private readonly caKeys: KeyPair,
    private readonly caCert: x509.X509Certificate,
    private readonly leafKeys: KeyPair,
    private readonly leafKeyPem: string,
    private readonly label: string,
  ) {}

  static async create(label: string): Promise<TaskCa> {
    const subtle = crypto.webcrypto.subtle;
    const caKeys = (await subtle.generateKey(ALG, true, ['sign', 'verify'])) as unknown as KeyPair;
    const now = Date.now();
    const caCert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: crypto.randomBytes(16).toString('hex').replace(/^[89a-f]/, '1'),
      name: `CN=Airlock egress CA for task ${label.replace(/[,=+<>#;"\\]/g, '_')}`,
      notBefore: new Date(now - 3600_000),
      notAfter: new Date(now + 30 * DAY),
      keys: caKeys,
      signingAlgorithm: ALG,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
      ],
    });
    // One key for every leaf of this task: the certificates differ, the key need not.
    const leafKeys = (await subtle.generateKey(ALG, true, ['sign', 'verify'])) as unknown as KeyPair;
    const leafKeyPem = pemKey(await subtle.exportKey('pkcs8', leafKeys.privateKey as unknown as crypto.webcrypto.CryptoKey));
    return new TaskCa(caKeys, caCert, leafKeys, leafKeyPem, label);
  }

  /** The CA certificate (PEM): what the sandbox trusts. */
  get certPem(): string {
    return this.caCert.toString('pem') + '\n';
  }

  /** A TLS context presenting a leaf for `host` signed by this CA (cached per host). */
  contextFor(host: string): Promise<tls.SecureContext> {
    let c = this.contexts.get(host);
    if (!c) {
      c = this.makeLeaf(host);
      this.contexts.set(host, c);
      c.catch(() => this.contexts.delete(host));
    }
    return c;
  }

  private async makeLeaf(host: string): Promise<tls.SecureContext> {
    const now = Date.now();
    const leaf = await x509.X509CertificateGenerator.create({
      serialNumber: crypto.randomBytes(16).toString('hex').replace(/^[89a-f]/, '1'),
      subject: `CN=${net.isIP(host) ? host : host.slice(0, 64)}`,
      issuer: this.caCert.subject,
      notBefore: new Date(now - 3600_000),
      notAfter: new Date(now + 30 * DAY),
      publicKey: this.leafKeys.publicKey,
      signingKey: this.caKeys.privateKey,
      signingAlgorithm: ALG,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension([{ type: net.isIP(host) ? 'ip' : 'dns', value: host }]),
        await x509.AuthorityKeyIdentifierExtension.create(this.caKeys.publicKey),
      ],
    });
    return tls.createSecureContext({ key: this.leafKeyPem, cert: leaf.toString('pem') + '\n' + this.certPem });
  }

  toString(): string {
    return `TaskCa(${this.label})`;
  }
}
