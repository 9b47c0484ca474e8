// ssh-add -x / -X: one lock for the whole agent (every socket), as with OpenSSH. The
// passphrase is kept only as a salted scrypt hash; failed unlocks slow down, so a locked
// agent cannot be brute-forced quickly. Unlock attempts run one at a time, each after the
// previous one's delay, across every connection: OpenSSH's agent gets that for free (it is
// single-threaded and sleeps), and without it 20 connections guessing at once all finished
// in the time of one delay (red team, test/unit/ssh-agent-lock.test.ts).
import * as crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (pw: Buffer, salt: Buffer, len: number, opts: crypto.ScryptOptions) => Promise<Buffer>;
const PARAMS: crypto.ScryptOptions = { N: 1 << 14, r: 8, p: 1 };

export class AgentLock {
  private hash: { salt: Buffer; digest: Buffer } | null = null;
  private failures = 0;
  /** The attempt in progress (and its delay): the next one starts after it. */
  private attempts: Promise<unknown> = Promise.resolve();

  get locked(): boolean {
    return this.hash !== null;
  }

  async lock(passphrase: Buffer): Promise<boolean> {
    // OpenSSH's ssh-agent refuses an empty password ("empty password not supported"):
    // a lock anyone can lift by pressing Enter is no lock, and a script piping nothing
    // into `ssh-add -x` would believe the agent is locked.
    if (passphrase.length === 0) return false;
    if (this.hash) return false;
    const salt = crypto.randomBytes(16);
    const digest = await scrypt(passphrase, salt, 32, PARAMS);
    if (this.hash) return false;
    this.hash = { salt, digest };
    return true;
  }

  unlock(passphrase: Buffer): Promise<boolean> {
    const attempt = this.attempts.then(() => this.tryUnlock(passphrase));
    this.attempts = attempt.catch(() => undefined);
    return attempt;
  }

  private async tryUnlock(passphrase: Buffer): Promise<boolean> {
    const h = this.hash;
    if (!h) return false;
    // Never the passphrase of a lock (see lock()); refused without counting a failure, as OpenSSH does.
    if (passphrase.length === 0) return false;
    const digest = await scrypt(passphrase, h.salt, 32, PARAMS);
    if (this.hash === h && crypto.timingSafeEqual(digest, h.digest)) {
      this.hash = null;
      this.failures = 0;
      return true;
    }
    // OpenSSH sleeps 0.1 s per failure so far (capped); same idea, without blocking others.
    this.failures = Math.min(this.failures + 1, 100);
    await new Promise((r) => setTimeout(r, 100 * this.failures));
    return false;
  }
}
