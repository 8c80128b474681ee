import { readFile } from 'node:fs/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runInSlices, type Steps } from '../../src/analysis/time-slices.ts';

/** Steps that each pause (a slice of 0 ms), counting the event loop's rounds meanwhile with a chain of immediates. */
async function roundsPerPause(pauses: number): Promise<number> {
  let rounds = 0;
  let done = false;
  const tick = () => {
    rounds += 1;
    if (!done) setImmediate(tick);
  };
  setImmediate(tick);
  function* steps(): Steps<void> {
    for (let i = 0; i < pauses; i++) yield;
  }
  await runInSlices(steps(), 0);
  done = true;
  return rounds / pauses;
}

test('sliced work gives the event loop one round a pause, not two, once a pause has resumed it', async () => {
  const perPause = await roundsPerPause(200);
  assert.ok(perPause >= 0.99 && perPause <= 1.05, `rounds of the event loop per pause: ${perPause}`);
});

test('timers and I/O still run between slices', async () => {
  let timerFiredAt: number | undefined;
  let readDoneAt: number | undefined;
  let step = 0;
  setTimeout(() => (timerFiredAt = step), 1);
  void readFile(import.meta.filename).then(() => (readDoneAt = step));
  function* steps(): Steps<number> {
    const until = performance.now() + 200;
    while (performance.now() < until) {
      step += 1;
      yield;
    }
    return step;
  }
  const total = await runInSlices(steps(), 1);
  assert.ok(timerFiredAt !== undefined && timerFiredAt < total, `the timer fired at step ${timerFiredAt} of ${total}`);
  assert.ok(readDoneAt !== undefined && readDoneAt < total, `the read finished at step ${readDoneAt} of ${total}`);
});

test.run();
