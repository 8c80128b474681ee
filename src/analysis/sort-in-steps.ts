/**
 * Sorting a million items takes longer than the event loop may be held, so it is written as steps (see
 * time-slices.ts): input already in order is recognised in one pass; otherwise short runs are sorted at once
 * and merged pairwise, a few thousand items per step.
 */
import { STEP_EVERY, type Steps } from './time-slices.ts';

const RUN = 4096;
const STEP_MASK = STEP_EVERY - 1;

/** The numbers 0..n-1 in the order `compare` puts the items they stand for (stable). */
export function* sortedIndexes(n: number, compare: (a: number, b: number) => number): Steps<Int32Array> {
  let order = new Int32Array(n);
  let inOrder = true;
  for (let i = 0; i < n; i++) {
    order[i] = i;
    if (inOrder && i > 0 && compare(i - 1, i) > 0) inOrder = false;
    if ((i & STEP_MASK) === STEP_MASK) yield;
  }
  if (inOrder) return order;
  for (let start = 0; start < n; start += RUN) {
    order.subarray(start, Math.min(n, start + RUN)).sort((a, b) => compare(a, b) || a - b);
    yield;
  }
  let merged = new Int32Array(n);
  for (let width = RUN; width < n; width *= 2) {
    for (let left = 0; left < n; left += 2 * width) {
      const middle = Math.min(n, left + width);
      const right = Math.min(n, left + 2 * width);
      let a = left;
      let b = middle;
      for (let out = left; out < right; out++) {
        merged[out] = b >= right || (a < middle && compare(order[a]!, order[b]!) <= 0) ? order[a++]! : order[b++]!;
        if ((out & STEP_MASK) === STEP_MASK) yield;
      }
    }
    [order, merged] = [merged, order];
  }
  return order;
}
