// A JSON-RPC call that must be refused with a given error code; returns the message so a
// test can check what it tells the caller to do.
import assert from 'node:assert/strict';

export async function refused(p: Promise<unknown>, code: number, what: string): Promise<string> {
  let message = '';
  await assert.rejects(p, (e: Error & { code?: number }) => {
    assert.equal(e.code, code, `${what}: ${e.message}`);
    message = e.message;
    return true;
  }, what);
  return message;
}
