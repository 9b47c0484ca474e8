// The Claude Code settings directories (CLAUDE_CONFIG_DIR) the daemon has seen, kept for
// every later request until it stops. One request's process tree may not show the variable
// (`env -u CLAUDE_CONFIG_DIR setsid airlock exec …` from inside Claude Code cuts it off), but
// the hook asked before that Bash call ran, from Claude Code's own environment, and the
// directory is remembered from then on. Only ever grows; a flood of made-up directories
// stops at MAX_REMEMBERED_DIRS (what is already remembered stays, and each request's own
// directories still count for it).
import type { PathResolver } from './ports';
import { configDirsFromValue, MAX_REMEMBERED_DIRS, tidy } from './claude-config';

export class ClaudeDirMemory {
  private readonly remembered = new Set<string>();

  constructor(seed: readonly string[]) {
    for (const d of seed) if (d.startsWith('/')) this.remembered.add(tidy(d));
  }

  /**
   * The directories that count for a request: every one remembered, plus `values` (CLAUDE_CONFIG_DIR
   * values; relative ones are taken from `cwd`), each also where its symbolic links lead.
   */
  forRequest(values: readonly string[], cwd: string | null, resolve?: PathResolver): string[] {
    const mine = new Set<string>();
    for (const v of values.slice(0, 16)) for (const d of configDirsFromValue(v, cwd)) mine.add(d);
    if (mine.size && resolve) {
      const { real } = resolve([...mine]);
      for (const t of real.values()) mine.add(tidy(t));
    }
    for (const d of mine) if (this.remembered.size < MAX_REMEMBERED_DIRS) this.remembered.add(d);
    if (!this.remembered.size) return [...mine];
    return [...new Set([...this.remembered, ...mine])];
  }

  /** What is remembered (for tests). */
  list(): string[] {
    return [...this.remembered];
  }
}
