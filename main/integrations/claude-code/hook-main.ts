// The hook's code as one file: the build bundles this entry with esbuild into
// hook.bundle.js (no zod, no commander: only what a tool call needs). bin.ts loads it.
import { runClaudeCodeHook } from './hook';

void runClaudeCodeHook();
