#!/usr/bin/env node
// `airlock`. The Claude Code hook runs before every tool call, so `airlock hook
// claude-code` skips the command-line parser and every other command's imports.
// `airlock history | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => process.exit(e.code === 'EPIPE' ? 0 : 70));
// Node opens its inspector on 127.0.0.1:9229 at SIGUSR1 (Node 20 has no --disable-sigusr1):
// one signal would turn the daemon, which holds the keys and decides, into something any
// local user could attach a debugger to and run code in. A listener of our own keeps the
// signal from doing that (commands that forward signals to a child, exec, add theirs).
process.on('SIGUSR1', () => undefined);

if (process.argv[2] === 'hook' && process.argv[3] === 'claude-code' && process.argv.length === 4) {
  require('../integrations/claude-code/bin');
} else {
  require('./program');
}
