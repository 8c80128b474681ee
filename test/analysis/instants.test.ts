import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { compareInstantPoints, instantPoint, pointInstant } from '../../src/analysis/instants.ts';
import { MAX_EPOCH_SECONDS, MIN_EPOCH_SECONDS, parseInstant } from '../../src/time/index.ts';

const SAFE = 2n ** 53n;
/** Seconds from every part of the supported years, the edges of the exact range and the years' ends included. */
const seconds = fc.oneof(
  fc.bigInt({ min: MIN_EPOCH_SECONDS, max: MAX_EPOCH_SECONDS }),
  fc.bigInt({ min: SAFE - 10n, max: SAFE + 10n }),
  fc.bigInt({ min: -SAFE - 10n, max: -SAFE + 10n }),
  fc.bigInt({ min: MAX_EPOCH_SECONDS - 10n, max: MAX_EPOCH_SECONDS }),
  fc.bigInt({ min: MIN_EPOCH_SECONDS, max: MIN_EPOCH_SECONDS + 10n }),
  fc.bigInt({ min: -1000n, max: 1000n }),
);
const instant = fc.record({ seconds, nanos: fc.oneof(fc.integer({ min: 0, max: 999_999_999 }), fc.constantFrom(0, 999_999_999)) });
const exactOrder = (a: { seconds: bigint; nanos: number }, b: { seconds: bigint; nanos: number }) =>
  a.seconds < b.seconds ? -1 : a.seconds > b.seconds ? 1 : Math.sign(a.nanos - b.nanos);

test('points of instants compare as the instants do, in every supported year', () => {
  fc.assert(
    fc.property(instant, instant, (a, b) => {
      assert.is(Math.sign(compareInstantPoints(instantPoint(a.seconds, a.nanos), instantPoint(b.seconds, b.nanos))), exactOrder(a, b));
    }),
    { numRuns: 5000 },
  );
});

test('a point is its instant exactly, its nanos fit an Int32 (the graph\'s column), and pointInstant gives the instant back', () => {
  fc.assert(
    fc.property(instant, (a) => {
      const point = instantPoint(a.seconds, a.nanos);
      assert.is(BigInt(point.seconds) * 1_000_000_000n + BigInt(point.nanos), a.seconds * 1_000_000_000n + BigInt(a.nanos));
      assert.ok(Number.isInteger(point.seconds));
      assert.is(new Int32Array([point.nanos])[0], point.nanos);
      assert.equal(pointInstant(point), { seconds: a.seconds, nanos: a.nanos });
    }),
    { numRuns: 5000 },
  );
});

test('within ±2^53 s a point is the whole second and its nanos; beyond, seconds one apart stay apart', () => {
  assert.equal(instantPoint(SAFE - 1n, 5), { seconds: Number(SAFE - 1n), nanos: 5 });
  assert.equal(instantPoint(-7n, 999_999_999), { seconds: -7, nanos: 999_999_999 });
  const far = parseInstant('+900000000-01-01T00:00:00Z').seconds; // where a double holds every fourth second
  assert.is(Number(far + 1n), Number(far + 2n));
  assert.ok(compareInstantPoints(instantPoint(far + 1n, 0), instantPoint(far + 2n, 0)) < 0);
  assert.ok(compareInstantPoints(instantPoint(far + 2n, 0), instantPoint(far + 1n, 999_999_999)) > 0);
  assert.throws(() => instantPoint(2n ** 55n, 0), /beyond the supported years/);
});

test.run();
