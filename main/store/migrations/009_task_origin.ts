import type { Migration } from './index';

// Where a task was started: NULL on this machine, else the remote (`airlock remote`) whose
// socket task.start came through. Only that origin may end the task from the agent side (a
// leaked token on a server must not end this machine's tasks). Tasks from before this
// migration count as local: a remote loses control of a task it started earlier (the
// human can still end it), never the other way round.
export const m009TaskOrigin: Migration = {
  version: 9,
  name: 'the remote a task was started through',
  up(db) {
    db.exec(`ALTER TABLE tasks ADD COLUMN remote TEXT`);
  },
};
