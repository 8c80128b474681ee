// The soak's account of the seconds whose loop delay went over its limit: collections and CPU in the same second.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { attributeLoopDelay, loopWindows } from '../../bench/soak/loop-windows.ts';
import type { Sample } from '../../bench/soak/sampler.ts';

const sample = (at: number, loopP99Ms: number | undefined, over10ms: number, mainRunMs: number, mainWaitMs: number): Sample => ({
  at,
  life: 1,
  rssMiB: 400,
  ...(loopP99Ms !== undefined && { loopP99Ms }),
  gc: { major: 0, over10ms },
  mainRunMs,
  mainWaitMs,
});

test('a long pause counts in the second whose scrape first shows it, including the first second after `from`', () => {
  const samples = [sample(9, 12, 3, 100, 10), sample(10, 35, 4, 400, 20), sample(11, 15, 4, 150, 30), sample(12, 40, 4, 500, 200), sample(13, 11, 5, 90, 5)];
  const windows = loopWindows(samples, 10);
  assert.equal(
    windows.map((w) => [w.loopP99Ms, w.longGcPause]),
    [
      [35, true],
      [15, false],
      [40, false],
      [11, true],
    ],
  );
  assert.equal(attributeLoopDelay(windows, 20), {
    windows: 4,
    over: 2,
    overWithLongGc: 1,
    overRunMs: 500,
    overWaitMs: 200,
    withinRunMs: 150,
    withinWaitMs: 30,
  });
});

test('samples without a loop figure are left out, and a window after one keeps its own collection count', () => {
  const samples = [sample(0, undefined, 1, 0, 0), sample(1, 25, 2, 300, 40)];
  const windows = loopWindows(samples, 0);
  assert.equal(windows, [{ loopP99Ms: 25, longGcPause: true, mainRunMs: 300, mainWaitMs: 40 }]);
  assert.equal(attributeLoopDelay([], 20), { windows: 0, over: 0, overWithLongGc: 0, overRunMs: undefined, overWaitMs: undefined, withinRunMs: undefined, withinWaitMs: undefined });
});

test.run();
