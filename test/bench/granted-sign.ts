// What the signature benches and profilers share: a key imported into the daemon with a grant
// that signs with it unasked, and the SIGN_REQUEST body for an SSHSIG-shaped message.
import * as fs from 'node:fs';
import type { Daemon } from '../helpers/daemon';
import { MSG } from '../../main/ssh/protocol';
import { Writer } from '../../main/ssh/wire';

/** What `ssh-keygen -Y sign` hands the agent: the SSHSIG preamble, namespace, hash and digest. */
export const SSHSIG_DATA = Buffer.concat([Buffer.from('SSHSIG'), new Writer().string('bench').string('').string('sha512').string(Buffer.alloc(64, 7)).toBuffer()]);

/** Imports the private key `file` and grants every signature (source ssh) without a prompt. */
export async function grantSigning(d: Daemon, file: string, note: string): Promise<void> {
  const ui = await d.ui();
  try {
    await ui.call('keys.import', { path: file, name: 'prof' });
    await ui.call('grants.create', { source: 'ssh', tool: 'ssh-sign', action: 'sign', effect: 'allow', note });
  } finally {
    ui.close();
  }
}

/** SIGN_REQUEST for SSHSIG_DATA with the key whose public half is `file`.pub. */
export function signRequestBody(file: string): Buffer {
  const blob = Buffer.from(fs.readFileSync(`${file}.pub`, 'utf8').split(' ')[1]!, 'base64');
  return new Writer().byte(MSG.SIGN_REQUEST).string(blob).string(SSHSIG_DATA).uint32(0).toBuffer();
}
