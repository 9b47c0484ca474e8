// Claude Code's hook input and output, without the mapping: what the hook process itself
// needs (the Node relay reads the event's name to skip the daemon after the tool ran) and
// what the daemon's mapping (./map.ts) builds on. Pure, no imports: it is in the hook bundle.
//
// Input (https://docs.anthropic.com/en/docs/claude-code/hooks):
//   {session_id, transcript_path, cwd, permission_mode, hook_event_name: "PreToolUse",
//    tool_name, tool_input}

export interface PreToolUseInput {
  session_id: string;
  cwd: string;
  tool_name: string;
  tool_input: Record<string, unknown>;
  hook_event_name: string;
}

const MAX_TEXT = 4096;

export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
export const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

/**
 * Hook events that come after the tool has run (Claude Code's PostToolUse, and
 * PostToolUseFailure): nothing is left to decide, so the hook never prompts, never blocks
 * and never asks the daemon — it exits 0 with no output, which Claude Code reads as "no
 * opinion". The request itself was recorded by the PreToolUse hook, with its decision.
 */
const AFTER_TOOL_EVENTS: ReadonlySet<string> = new Set(['PostToolUse', 'PostToolUseFailure']);

/** True when stdin is the JSON of an after-the-tool event (see AFTER_TOOL_EVENTS). */
export function isAfterToolEvent(input: PreToolUseInput | HookInputError): boolean {
  return input.hook_event_name !== undefined && AFTER_TOOL_EVENTS.has(input.hook_event_name);
}

/** Stdin that is not a tool call we can read; the event's name when that much was readable. */
export interface HookInputError {
  error: string;
  hook_event_name?: string;
}

/** Validates the hook's stdin. Returns an error text for anything that is not a PreToolUse call. */
export function parseHookInput(raw: string): PreToolUseInput | HookInputError {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return { error: 'stdin is not JSON' };
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { error: 'stdin is not a JSON object' };
  const o = v as Record<string, unknown>;
  const event = str(o.hook_event_name)?.slice(0, 64);
  const fail = (error: string): HookInputError => (event === undefined ? { error } : { error, hook_event_name: event });
  const tool = str(o.tool_name);
  if (!tool || tool.length > 256) return fail('tool_name missing');
  const input = o.tool_input;
  if (input !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input))) return fail('tool_input is not an object');
  return {
    session_id: clip(str(o.session_id) ?? '', 256),
    cwd: clip(str(o.cwd) ?? '', MAX_TEXT),
    tool_name: tool,
    tool_input: (input as Record<string, unknown> | undefined) ?? {},
    hook_event_name: event ?? 'PreToolUse',
  };
}

export type HookDecision = 'allow' | 'deny' | 'ask';

/** The JSON Claude Code reads from the hook's stdout. */
export function hookOutput(decision: HookDecision, reason: string): string {
  return JSON.stringify({
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, permissionDecisionReason: clip(reason, 1000) },
  });
}

