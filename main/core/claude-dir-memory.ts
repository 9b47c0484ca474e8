// The Claude Code settings directories (CLAUDE_CONFIG_DIR) the daemon has seen, kept for
// every later request, across restarts. One request's process tree may not show the variable
// (`env -u CLAUDE_CONFIG_DIR setsid airlock exec …` from inside Claude Code cuts it off), but
// the hook asked before that Bash call ran, from Claude Code's own environment, and the
// directory is remembered from then on — and kept in the database (ClaudeDirKeeper), so a
// restarted daemon does not forget it until the next request that carries it. Only ever
// grows; a flood of made-up directories stops at MAX_REMEMBERED_DIRS (what is already
// remembered stays, and each request's own directories still count for it).
import type { ClaudeDirKeeper, PathResolver } from './ports';
import { configDirsFromValue, MAX_REMEMBERED_DIRS, tidy } from './claude-config';

export class ClaudeDirMemory {
  private readonly remembered = new Set<string>();
  /** Remembered but not yet kept (the keeper failed: the database was busy); tried again on the next request. */
  private readonly unsaved = new Set<string>();

  /**
   * `seed`: the daemon's own CLAUDE_CONFIG_DIR directories (always remembered); `keeper`:
   * where directories are kept across restarts (what it holds is remembered from the start).
   */
  constructor(
    seed: readonly string[],
    private readonly keeper?: ClaudeDirKeeper,
  ) {
    for (const d of seed) if (d.startsWith('/')) this.remember(tidy(d), true);
    let kept: string[] = [];
    try {
      kept = keeper?.load(MAX_REMEMBERED_DIRS) ?? [];
    } catch {
      // An unreadable table only loses what was kept; what requests carry still counts.
    }
    for (const d of kept) if (typeof d === 'string' && d.startsWith('/') && this.remembered.size < MAX_REMEMBERED_DIRS) this.remembered.add(tidy(d));
    this.save();
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
    for (const d of mine) this.remember(d, false);
    this.save();
    if (!this.remembered.size) return [...mine];
    return [...new Set([...this.remembered, ...mine])];
  }

  /** What is remembered (for tests). */
  list(): string[] {
    return [...this.remembered];
  }

  /** Adds a directory (a seed always; another only below the cap); a new one is to be kept. */
  private remember(d: string, always: boolean): void {
    if (this.remembered.has(d) || (!always && this.remembered.size >= MAX_REMEMBERED_DIRS)) return;
    this.remembered.add(d);
    this.unsaved.add(d);
  }

  /** Hands what is not kept yet to the keeper; what it cannot take now is tried again later. */
  private save(): void {
    if (!this.keeper) return this.unsaved.clear();
    for (const d of this.unsaved) {
      try {
        this.keeper.keep(d, MAX_REMEMBERED_DIRS);
        this.unsaved.delete(d);
      } catch {
        return;
      }
    }
  }
}
