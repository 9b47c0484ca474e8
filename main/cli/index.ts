#!/usr/bin/env node
// `airlock`. The Claude Code hook runs before every tool call, so `airlock hook
// claude-code` skips the command-line parser and every other command's imports.
if (process.argv[2] === 'hook' && process.argv[3] === 'claude-code' && process.argv.length === 4) {
  require('../integrations/claude-code/bin');
} else {
  require('./program');
}
