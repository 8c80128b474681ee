// How the targets table writes a ratio or a figure with a limit: a miss never rounded onto its target.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { limitText, ratioText } from '../../bench/lib/targets.ts';

test('two decimals, where they keep the ratio on its side of the target', () => {
  assert.is(ratioText(0.3069, 0.6), '0.31×');
  assert.is(ratioText(1.2987, 1.0), '1.30×');
  assert.is(ratioText(0.3049), '0.30×', 'no target: two decimals');
});

test('more, rounded down, where two would round a miss up onto its target', () => {
  assert.is(ratioText(0.29734, 0.3), '0.297×');
  assert.is(ratioText(0.9951, 1.0), '0.995×');
  assert.is(ratioText(0.2496, 0.25), '0.249×', 'not 0.250×: rounded down');
  assert.is(ratioText(0.29996, 0.3), '0.299×');
  assert.is(ratioText(0.3, 0.3), '0.30×', 'exactly the target is met and shown so');
  assert.is(ratioText(0.3049, 0.3), '0.30×', 'a hit rounded down to its target is still on its side');
});

test('no ratio measured', () => {
  assert.is(ratioText(undefined, 0.3), '—');
  assert.is(ratioText(Number.NaN), '—');
});

test('a figure with an upper limit: more, rounded up, where two would round a miss down onto its limit', () => {
  assert.is(limitText(9.92, 10), '9.92');
  assert.is(limitText(12.361, 10), '12.36');
  assert.is(limitText(10.0041, 10), '10.005');
  assert.is(limitText(10.0001, 10), '10.001', 'not 10.000: rounded up');
  assert.is(limitText(10, 10), '10.00', 'exactly the limit is met and shown so');
  assert.is(limitText(9.996, 10), '10.00', 'a hit rounded up to its limit is still on its side');
});

test.run();
