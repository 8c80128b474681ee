import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AnchorStabilityChecker } from '../../src/analysis/anchor-stability-checker.ts';
import { AnalysisPool } from '../../src/analysis/pool.ts';
import { computeAnchorStability } from '../../src/anchors/stability.ts';
import type { AnchorStabilityInput } from '../../src/anchors/stability.ts';
import { ApiError } from '../../src/domain/errors.ts';

const pool = new AnalysisPool({ threads: 1 });
const lab: AnchorStabilityInput['conditions'] = {};
const harsh: AnchorStabilityInput['conditions'] = { temperatureKelvin: 330, humidityPercent: 90, fieldTesla: 0.2, qubitConfiguration: '11', superpositionStabilityPercent: 90 };

test('answers as computed directly; later checks of the anchor, in other conditions too, simulate nothing again', async () => {
  const checker = new AnchorStabilityChecker(pool);
  const first: AnchorStabilityInput = { anchorId: 'anc_kept', accuracy: 'nanosecond', conditions: lab };
  const before = pool.stats().completed;
  assert.equal(await checker.check(first), computeAnchorStability(first));
  assert.is(pool.stats().completed, before + 1);
  const adjusted = { ...first, conditions: harsh };
  assert.equal(await checker.check(adjusted), computeAnchorStability(adjusted));
  assert.equal(await checker.check(first), computeAnchorStability(first));
  assert.is(pool.stats().completed, before + 1, 'no second simulation of the same anchor');
  const counts = checker.counts();
  assert.equal([counts.name, counts.hits, counts.misses, counts.entries], ['anchor_noise', 2, 1, 1]);
  assert.ok(counts.bytes > 300 && counts.bytes <= counts.maxBytes, `${counts.bytes} bytes counted`);
});

test('the same id at the other accuracy is another noise; microsecond anchors are kept too', async () => {
  const checker = new AnchorStabilityChecker(pool);
  const nano: AnchorStabilityInput = { anchorId: 'anc_both', accuracy: 'nanosecond', conditions: harsh };
  const micro: AnchorStabilityInput = { ...nano, accuracy: 'microsecond' };
  assert.equal(await checker.check(nano), computeAnchorStability(nano));
  assert.equal(await checker.check(micro), computeAnchorStability(micro));
  const inline = pool.stats().inlineCompleted;
  assert.equal(await checker.check(micro), computeAnchorStability(micro));
  assert.is(pool.stats().inlineCompleted, inline);
  assert.is(checker.counts().entries, 2);
});

test('checks of a new anchor that arrive together share one simulation', async () => {
  const checker = new AnchorStabilityChecker(pool);
  const input: AnchorStabilityInput = { anchorId: 'anc_together', accuracy: 'nanosecond', conditions: lab };
  const before = pool.stats().completed;
  const answers = await Promise.all(Array.from({ length: 4 }, () => checker.check(input)));
  for (const answer of answers) assert.equal(answer, computeAnchorStability(input));
  assert.is(pool.stats().completed, before + 1);
});

test('a simulation the pool refused is not kept: the next check simulates and answers', async () => {
  const small = new AnalysisPool({ threads: 1, maxQueue: 1 });
  try {
    const checker = new AnchorStabilityChecker(small);
    const busy = [0, 1].map((k) => small.simulateUnitNoise(`busy-${k}`, 'nanosecond'));
    const input: AnchorStabilityInput = { anchorId: 'anc_refused', accuracy: 'nanosecond', conditions: lab };
    try {
      await checker.check(input);
      assert.unreachable('expected resource_exhausted');
    } catch (error) {
      assert.instance(error, ApiError);
      assert.is((error as ApiError).code, 'resource_exhausted');
    }
    await Promise.all(busy);
    assert.is(checker.counts().entries, 0);
    assert.equal(await checker.check(input), computeAnchorStability(input));
    assert.is(checker.counts().entries, 1);
  } finally {
    await small.close();
  }
});

test('a budget of 0 keeps nothing: every check simulates', async () => {
  const checker = new AnchorStabilityChecker(pool, 0);
  const input: AnchorStabilityInput = { anchorId: 'anc_unkept', accuracy: 'nanosecond', conditions: lab };
  const before = pool.stats().completed;
  await checker.check(input);
  assert.equal(await checker.check(input), computeAnchorStability(input));
  assert.is(pool.stats().completed, before + 2);
  assert.is(checker.counts().entries, 0);
});

test.after(() => pool.close());

test.run();
