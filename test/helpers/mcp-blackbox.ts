// The set-up of a black-box MCP test file: the real daemon in a temp home, a raw ui.sock
// connection (the human), and a working directory beside the home (realpath: the prompts name
// resolved paths). Registers the file's before/after; the fields are set once `before` ran.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before } from 'node:test';
import { Wire } from './blackbox';
import { startDaemon, tempHome, type Daemon } from './daemon';

export interface McpBlackbox {
  d: Daemon;
  ui: Wire;
  dir: string;
}

/** `prefix`: the temp home's; `sub`: the working directory's, beside the home. */
export function mcpBlackbox(prefix: string, sub: string): McpBlackbox {
  const s = {} as McpBlackbox;
  before(async () => {
    s.d = await startDaemon({ home: path.join(tempHome(prefix), 'h') });
    s.ui = await Wire.open(s.d.uiSock);
    s.dir = fs.realpathSync(fs.mkdtempSync(path.join(path.dirname(s.d.home), sub)));
  });
  after(async () => {
    s.ui?.close();
    await s.d?.stop();
  });
  return s;
}
