// The daemon's files of Claude Code sessions (./hook-service.ts): `<session>.task` (the task's
// token, 0600) and `<session>.owner` (the Claude Code process it belongs to,
// main/os/session-owner.ts), in one folder per socket (<sockets>/claude-code/, a remote's
// remotes/<name>/claude-code/). A caller that is not a session's owner gets
// `<session>.<hash of who it is>.task` (and its .owner) instead.
//
// Bounded (a session id is the hook's stdin, so anyone who can run the hook can name a new one
// per call, and each new session is a new task with its own sockets). Before a new session's
// task is started, `makeRoom` lets go of sessions nobody can use any more and keeps the rest
// under two caps, never by answering "allow":
// - a session whose owner process has exited (or a file of nobody's: from before owners) is
//   let go: only its owner could use it, and a new process naming it gets a new task anyway;
// - one owner keeps at most SESSION_CAPS.perOwner sessions: its least recently used one is
//   let go for the new one (a long-lived Claude Code that runs /clear over and over, or every
//   session of a remote, which all come through one forwarding ssh); where callers cannot be
//   told apart (no /proc) the folder's cap is that one owner's;
// - one folder keeps at most SESSION_CAPS.total sessions of live owners: past that no task is
//   started and the hook asks, with the reason, until some of those processes exit (another
//   owner's live session is never let go for a newcomer, so a flood from many processes
//   cannot take a running Claude Code's task away).
// A session let go has its files removed and its task ended (the caller ends it: the tokens
// are returned), as `airlock task start -- claude` ends its task when claude exits; a later
// call of that session starts a new task, so the human is asked again, never less.
import crypto = require('node:crypto');
import fs = require('node:fs');
import path = require('node:path');

export const SESSION_CAPS = {
  /** Sessions one owner process keeps (its least recently used one makes way). */
  perOwner: 16,
  /** Sessions of live owners one folder keeps (past it the hook asks). */
  total: 128,
} as const;

/** How often a session in use has its file's time refreshed (what "least recently used" reads). */
const TOUCH_EVERY_MS = 60_000;
/** A stray file (a write the daemon never finished) older than this is removed. */
const STRAY_AFTER_MS = 60_000;

/**
 * The file of one session's task (its token, 0600), in `dir`. Every character but letters,
 * digits, `_` and `-` becomes `_` (Claude Code's ids are UUIDs): no `/` or `..` leaves the
 * folder, and no dot, so a session's name never ends in `.<32 hex>`, which is how a caller's
 * own file of another session is named (foreignSessionFile). With dots kept, an agent that
 * knew a victim Claude Code's session id and its pid and start time (/proc) named the session
 * `<id>.<hash of the victim>`: the victim's calls then ran as the attacker's task, and their
 * "allow for this task" became the attacker's grants (test/unit/redteam-hook-sessions.test.ts).
 * Two ids that differ only in such characters (`a/b`, `a_b`, `a.b`) share a file, hence a task
 * only for the same owner: another process naming it gets its own (hook-service.ts fileFor).
 */
export function sessionFile(dir: string, sessionId: string): string {
  const safe = sessionId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 128) || 'none';
  return path.join(dir, `${safe}.task`);
}

/** Who started the task of a session file (`<session>.owner` beside `<session>.task`). */
export const ownerFileOf = (file: string) => file.replace(/\.task$/, '.owner');

/** The task file of a caller that is not the session's owner: its own, named by a hash of who it is. */
export function foreignSessionFile(file: string, owner: string): string {
  return file.replace(/\.task$/, `.${crypto.createHash('sha256').update(owner).digest('hex').slice(0, 32)}.task`);
}

/**
 * Opened without following a link and without waiting: anything else in the folder (a link to
 * a file holding some token, a FIFO that would block the daemon's one thread on open, a
 * directory) reads as no file. Only the user's own processes can write the folder, but an
 * agent's approved script is one of them.
 */
const READ_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

export function readText(file: string): string | null {
  try {
    // Node takes fs.open's numeric flags here too; its types only name the string ones.
    return fs.readFileSync(file, { encoding: 'utf8', flag: READ_FLAGS as unknown as string }).trim();
  } catch {
    return null;
  }
}

export function readSessionTask(file: string): string | null {
  const t = readText(file);
  return t !== null && /^[A-Za-z0-9_.:-]{1,64}$/.test(t) ? t : null;
}

function writePrivate(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  // A fresh file ('wx'), never through whatever sits at that name (a planted link would have
  // the daemon write the token into the file it leads to).
  fs.rmSync(tmp, { force: true });
  fs.writeFileSync(tmp, text + '\n', { mode: 0o600, flag: 'wx' });
  fs.renameSync(tmp, file);
}

/** Last time (ms) each session file's time was refreshed by this daemon: a throttle, cleared when large. */
const touched = new Map<string, number>();

/**
 * The owner first, then the task: whoever reads a task file finds its owner already there.
 * Throws when the files cannot be written (something planted at the name, a full disk): the
 * caller ends the task it started, since a task nobody's file names would be started again on
 * every call, never ended and never counted by makeRoom's caps.
 */
export function writeSessionTask(file: string, task: string, owner: string): void {
  writePrivate(ownerFileOf(file), owner);
  writePrivate(file, task);
  touched.set(file, Date.now());
}

/** Marks a session as used now (its file's time orders who makes way), at most once a minute per file. */
export function touchSession(file: string, now = Date.now()): void {
  const last = touched.get(file);
  if (last !== undefined && now - last < TOUCH_EVERY_MS) return;
  if (touched.size >= 4096) touched.clear();
  touched.set(file, now);
  try {
    const t = new Date(now);
    fs.utimesSync(file, t, t);
  } catch {
    // Gone meanwhile: nothing to mark.
  }
}

export interface Room {
  /** Why no task may be started for the new session (the hook asks), or null: there is room. */
  full: string | null;
  /** Tokens of the session tasks whose files were removed, and why: the caller ends them (their history rows say why). */
  released: { token: string; why: 'owner-exited' | 'unowned' | 'made-way' }[];
}

interface Held {
  base: string;
  owner: string;
  token: string;
  used: number;
}

/**
 * Makes room in `dir` for `file`, a new session task of `owner`, before it is started (see the
 * header). `pending`: owners of the session tasks of this folder being started right now
 * (counted, never let go). `alive(owner)`: whether that process still runs (always true where
 * it cannot be told). Synchronous, so no other call of this daemon counts in between.
 */
export function makeRoom(dir: string, file: string, owner: string, pending: readonly string[], alive: (owner: string) => boolean, now = Date.now()): Room {
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    // No folder yet: nothing held (starts in flight still count).
  }
  const released: Room['released'] = [];
  const present = new Set(names);
  const remove = (base: string) => {
    for (const ext of ['.task', '.owner']) {
      try {
        fs.unlinkSync(path.join(dir, base + ext));
      } catch {
        // Already gone.
      }
    }
    touched.delete(path.join(dir, `${base}.task`));
  };
  const mtime = (name: string): number => {
    try {
      return fs.statSync(path.join(dir, name)).mtimeMs;
    } catch {
      return now;
    }
  };
  const liveness = new Map<string, boolean>();
  const held: Held[] = [];
  for (const name of names) {
    const stray = name.endsWith('.tmp') || (name.endsWith('.owner') && !present.has(`${name.slice(0, -'.owner'.length)}.task`));
    if (stray) {
      // A write in flight writes the owner, then the task: give it a minute before calling it stray.
      try {
        if (now - mtime(name) > STRAY_AFTER_MS) fs.rmSync(path.join(dir, name), { force: true });
      } catch {
        // Not a file (a directory put there): left alone, it holds no task.
      }
      continue;
    }
    if (!name.endsWith('.task') || path.join(dir, name) === file) continue;
    const base = name.slice(0, -'.task'.length);
    const token = readSessionTask(path.join(dir, name));
    const who = readText(path.join(dir, `${base}.owner`));
    let live = false;
    if (who !== null) {
      const known = liveness.get(who);
      live = known ?? alive(who);
      if (known === undefined) liveness.set(who, live);
    }
    if (token === null || who === null || !live) {
      // Not a task, nobody's, or its owner has exited: nobody can use it any more.
      remove(base);
      if (token !== null) released.push({ token, why: who === null ? 'unowned' : 'owner-exited' });
      continue;
    }
    held.push({ base, owner: who, token, used: mtime(name) });
  }
  const startingMine = pending.filter((o) => o === owner).length;
  const mine = held.filter((h) => h.owner === owner).sort((a, b) => a.used - b.used);
  // Where callers cannot be told apart (owner "": no /proc, macOS) every session is one owner's:
  // the folder's cap is its cap, so seventeen Claude Codes there do not push each other out.
  const perOwner = owner === '' ? SESSION_CAPS.total : SESSION_CAPS.perOwner;
  while (mine.length > 0 && mine.length + startingMine >= perOwner) {
    const oldest = mine.shift()!;
    remove(oldest.base);
    released.push({ token: oldest.token, why: 'made-way' });
    held.splice(held.indexOf(oldest), 1);
  }
  const where = `in ${dir}`;
  if (startingMine >= perOwner) {
    return { full: `Airlock did not start a task for this Claude Code session: the process it comes from is starting ${startingMine} other sessions at once ${where} (at most ${perOwner} per process); asking instead`, released };
  }
  if (held.length + pending.length >= SESSION_CAPS.total) {
    return {
      full: `Airlock did not start a task for this Claude Code session: ${held.length + pending.length} sessions of processes still running already have one ${where} (at most ${SESSION_CAPS.total}: a flood of session ids?). A session is let go when its process exits; asking instead`,
      released,
    };
  }
  return { full: null, released };
}
