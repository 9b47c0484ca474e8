#!/usr/bin/env node
// `airlock`. The Claude Code hook runs before every tool call, so `airlock hook
// claude-code` skips the command-line parser and every other command's imports.
// `airlock history | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => process.exit(e.code === 'EPIPE' ? 0 : 70));

if (process.argv[2] === 'hook' && process.argv[3] === 'claude-code' && process.argv.length === 4) {
  require('../integrations/claude-code/bin');
} else {
  require('./program');
}
