// The hook's own entry file: what ~/.claude/settings.json runs. It skips the CLI's
// argument parsing (commander, zod via the other commands) so a tool call costs little
// more than starting Node.
import { runClaudeCodeHook } from './hook';

void runClaudeCodeHook();
