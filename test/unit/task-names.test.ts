// Task names that read the same (task-names.ts): the forms an agent could use to make its
// task look like one the human runs, or like Airlock itself, on a prompt.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nameKey, namedLikeAirlock, taskNameReasons } from '../../main/core/task-names';

test('red team: names that read the same share one form (case, fullwidth, zero-width, bidi, control characters, spacing)', () => {
  for (const n of ['fix CI', 'Fix CI', 'FIX  CI', ' fix CI ', 'fix\u200bCI'.replace('\u200b', ' \u200b'), 'ｆｉｘ　ＣＩ', 'fix\u202e CI', 'fix\u0007 CI', 'fix\tCI', 'fix\u00a0CI']) {
    assert.equal(nameKey(n), 'fix ci', JSON.stringify(n));
  }
  for (const n of ['fix CI 2', 'fixCI', 'fіx CI' /* Cyrillic і: not folded, see task-names.ts */]) assert.notEqual(nameKey(n), 'fix ci', n);
});

test('red team: a name starting with Airlock, however spelled, is named like Airlock; a word containing it is not', () => {
  for (const n of ['Airlock', 'airlock: approve', 'AIRLOCK system update', '  ＡＩＲＬＯＣＫ', '[Airlock] confirm', 'Air\u200block']) assert.ok(namedLikeAirlock(n), n);
  for (const n of ['fix CI', 'airlocked doors', 'my airlock task']) assert.ok(!namedLikeAirlock(n), n);
});

test('the reasons name the other tasks and this one, and are empty for a unique, ordinary name', () => {
  assert.deepEqual(taskNameReasons({ id: 't_b', name: 'docs' }, []), []);
  const [r] = taskNameReasons({ id: 't_b', name: 'fix CI' }, ['t_a']);
  assert.match(r!, /another running task has the same name "fix CI" \(t_a\): this is task t_b/);
  assert.equal(taskNameReasons({ id: 't_b', name: 'Airlock' }, ['t_a']).length, 2);
});
