// The least-squares slope the soak reports as each life's RSS trend.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { slope } from '../../bench/lib/report.ts';

test('a straight line gives its slope; a sawtooth around a flat line gives about none', () => {
  assert.is(slope([0, 1, 2, 3].map((x) => ({ x, y: 5 + 2 * x }))), 2);
  const sawtooth = Array.from({ length: 600 }, (_, x) => ({ x, y: 400 + (x % 30) * 3 }));
  assert.ok(Math.abs(slope(sawtooth)!) < 0.01, `slope ${slope(sawtooth)}`);
});

test('fewer than two distinct xs have no slope', () => {
  assert.is(slope([]), undefined);
  assert.is(slope([{ x: 1, y: 2 }]), undefined);
  assert.is(slope([{ x: 1, y: 2 }, { x: 1, y: 3 }]), undefined);
});

test.run();
