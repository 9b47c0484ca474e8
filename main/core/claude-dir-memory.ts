// The Claude Code settings directories (CLAUDE_CONFIG_DIR) the daemon has seen, kept for
// every later request, across restarts. One request's process tree may not show the variable
// (`env -u CLAUDE_CONFIG_DIR setsid airlock exec …` from inside Claude Code cuts it off), but
// the hook asked before that Bash call ran, from Claude Code's own environment, and the
// directory is remembered from then on — and kept in the database (ClaudeDirKeeper), so a
// restarted daemon does not forget it until the next request that carries it. Only ever
// grows; a flood of made-up directories stops at MAX_REMEMBERED_DIRS (what is already
// remembered stays, and each request's own directories still count for it).
import type { ClaudeDirKeeper, PathResolver } from './ports';
import { configDirsFromValues, MAX_REMEMBERED_DIRS, tidy, type ConfigDirValue } from './claude-config';

export class ClaudeDirMemory {
  private readonly remembered = new Set<string>();
  /** Remembered but not yet kept (the keeper failed: the database was busy); tried again on the next request. */
  private readonly unsaved = new Set<string>();

  /**
   * `seed`: the daemon's own CLAUDE_CONFIG_DIR values (always remembered); `keeper`: where
   * directories are kept across restarts (what it holds is remembered from the start);
   * `resolve`: where symbolic links lead (without it directories are taken as written).
   */
  constructor(
    seed: readonly ConfigDirValue[],
    private readonly opts: { keeper?: ClaudeDirKeeper; resolve?: PathResolver } = {},
  ) {
    for (const d of configDirsFromValues(seed, opts.resolve)) this.remember(d, true);
    let kept: string[] = [];
    try {
      kept = opts.keeper?.load(MAX_REMEMBERED_DIRS) ?? [];
    } catch {
      // An unreadable table only loses what was kept; what requests carry still counts.
    }
    for (const d of kept) if (typeof d === 'string' && d.startsWith('/') && this.remembered.size < MAX_REMEMBERED_DIRS) this.remembered.add(tidy(d));
    this.save();
  }

  /**
   * The directories that count for a request: every one remembered, plus those `values`
   * name (CLAUDE_CONFIG_DIR values from /proc and from the request, each with the working
   * directory it is relative to), each also where its symbolic links lead.
   */
  forRequest(values: readonly ConfigDirValue[]): string[] {
    const mine = configDirsFromValues(values, this.opts.resolve);
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
    const { keeper } = this.opts;
    if (!keeper) return this.unsaved.clear();
    for (const d of this.unsaved) {
      try {
        keeper.keep(d, MAX_REMEMBERED_DIRS);
        this.unsaved.delete(d);
      } catch {
        return;
      }
    }
  }
}
