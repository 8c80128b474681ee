import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { simulateClock } from '../../src/anchors/clock-simulation.ts';
import { computeAnchorStability, simulateUnitNoise, statusFor, TOLERANCE_SECONDS } from '../../src/anchors/stability.ts';
import type { AnchorAccuracy, AnchorStatus } from '../../src/anchors/stability.ts';
import type { AnchorConditions } from '../../src/anchors/units.ts';
import { parseAnchorConditions } from '../../src/anchors/units.ts';

const rank: Record<AnchorStatus, number> = { Stable: 0, Unstable: 1, Critical: 2 };
const check = (conditions: AnchorConditions, accuracy: AnchorAccuracy = 'microsecond', anchorId = 'anchor-1') =>
  computeAnchorStability({ anchorId, accuracy, conditions });

test('a constant frequency offset without noise accumulates exactly y·T and no Allan deviation', () => {
  for (const [offset, hold] of [[1e-7, 1], [-3e-9, 1], [2.5e-6, 10]] as const) {
    const clock = simulateClock({ offset, noiseLevel: 0, holdSeconds: hold, samples: 10_000, seedKey: 'constant' });
    assert.ok(Math.abs(clock.finalPhaseSeconds - offset * hold) <= 1e-9 * Math.abs(offset * hold), `x(T) for y=${offset}`);
    for (const point of clock.allan) assert.ok(point.deviation <= 1e-12 * Math.abs(offset), `σ at τ=${point.tauSeconds}`);
    assert.ok(clock.estimatedNoiseLevel <= 1e-12 * Math.abs(offset));
  }
});

test('simulated white FM noise has an Allan deviation slope of −1/2 and recovers its level', () => {
  for (const seedKey of ['a', 'b', 'c', 'd']) {
    const clock = simulateClock({ offset: 0, noiseLevel: 3e-11, holdSeconds: 1, samples: 1 << 18, seedKey });
    assert.ok(Math.abs(clock.allanSlope + 0.5) < 0.06, `slope ${clock.allanSlope} (seed ${seedKey})`);
    assert.ok(Math.abs(clock.estimatedNoiseLevel / 3e-11 - 1) < 0.03, `level ${clock.estimatedNoiseLevel} (seed ${seedKey})`);
    for (const point of clock.allan.slice(0, 3)) {
      const expected = 3e-11 / Math.sqrt(point.tauSeconds);
      assert.ok(Math.abs(point.deviation / expected - 1) < 0.05, `σ(${point.tauSeconds}) = ${point.deviation}, expected ≈ ${expected}`);
    }
  }
});

test('a frequency offset does not change the Allan deviation (it cancels in the second differences)', () => {
  const base = { noiseLevel: 1e-9, holdSeconds: 1, samples: 10_000, seedKey: 'offset' };
  const without = simulateClock({ ...base, offset: 0 });
  const withOffset = simulateClock({ ...base, offset: 1e-8 });
  without.allan.forEach((point, k) => assert.ok(Math.abs(withOffset.allan[k]!.deviation / point.deviation - 1) < 1e-6));
});

test('lab conditions are Stable at both accuracies; worse conditions make a nanosecond anchor Unstable', () => {
  const lab = parseAnchorConditions(
    { temperature: '22°C', humidity: '45%', em_field_strength: '50µT' },
    { qubit_configuration: '1010', superposition_stability: '99.9%' },
  );
  assert.is(check(lab, 'microsecond').status, 'Stable');
  assert.is(check(lab, 'nanosecond').status, 'Stable');
  const warm = parseAnchorConditions({ temperature: '40°C', humidity: '80%', em_field_strength: '1mT' }, { superposition_stability: '95%' });
  assert.is(check(warm, 'microsecond').status, 'Stable');
  assert.is(check(warm, 'nanosecond').status, 'Unstable');
  assert.is(check(parseAnchorConditions({ temperature: '10000 K' }, undefined)).status, 'Critical');
});

test('the figures: tolerance, hold, samples, and the condition that limits the anchor', () => {
  const micro = check({});
  assert.is(micro.toleranceSeconds, TOLERANCE_SECONDS.microsecond);
  assert.is(micro.holdIntervalSeconds, 1);
  assert.is(micro.samples, 10_000);
  assert.is(micro.limitingFactor, 'quantum_state');
  assert.ok(micro.allanDeviation.length >= 3);
  assert.is(check({ temperatureKelvin: 353.15 }).limitingFactor, 'temperature');
  assert.is(check({ humidityPercent: 100 }).limitingFactor, 'humidity');
  assert.is(check({ fieldTesla: 1 }).limitingFactor, 'em_field_strength');
  assert.ok(check({}, 'nanosecond').samples >= 1_000_000);
});

test('statusFor: Stable up to the tolerance, Unstable up to 10×, Critical beyond', () => {
  assert.is(statusFor(1e-6, 'microsecond'), 'Stable');
  assert.is(statusFor(1.0001e-6, 'microsecond'), 'Unstable');
  assert.is(statusFor(1e-5, 'microsecond'), 'Unstable');
  assert.is(statusFor(1.0001e-5, 'microsecond'), 'Critical');
  assert.is(statusFor(1e-9, 'nanosecond'), 'Stable');
  assert.is(statusFor(1e-8, 'nanosecond'), 'Unstable');
  assert.is(statusFor(1.0001e-8, 'nanosecond'), 'Critical');
});

test('the same anchor and conditions always give the same answer; another anchor draws its own noise', () => {
  const conditions: AnchorConditions = { temperatureKelvin: 300, humidityPercent: 60, fieldTesla: 1e-3, qubitConfiguration: '0110', superpositionStabilityPercent: 98 };
  assert.equal(check(conditions), check(conditions));
  assert.equal(check(conditions, 'nanosecond'), check(conditions, 'nanosecond'));
  const other = check(conditions, 'microsecond', 'anchor-2');
  assert.is.not(other.allanDeviation[0]!.deviation, check(conditions).allanDeviation[0]!.deviation);
  assert.ok(Math.abs(other.predictedErrorSeconds / check(conditions).predictedErrorSeconds - 1) < 0.1);
});

test('a simulation gives the same figures whatever ran before it on the thread (its working arrays are reused)', () => {
  const small = { offset: 1e-9, noiseLevel: 1, holdSeconds: 1, samples: 10_000, seedKey: 'reuse' };
  const large = { ...small, samples: 1 << 20 };
  const first = simulateClock(small);
  const big = simulateClock(large);
  simulateClock({ offset: 5e-7, noiseLevel: 2, holdSeconds: 3, samples: 777, seedKey: 'other' });
  assert.equal(simulateClock(small), first);
  assert.equal(simulateClock(large), big);
});

test('given the unit noise, a stability is the same as when it simulates the noise itself', () => {
  const conditions: AnchorConditions = { temperatureKelvin: 250, humidityPercent: 80, qubitConfiguration: '1' };
  for (const accuracy of ['microsecond', 'nanosecond'] as const) {
    const input = { anchorId: 'given', accuracy, conditions };
    assert.equal(computeAnchorStability(input, simulateUnitNoise('given', accuracy)), computeAnchorStability(input));
  }
});

const conditionsArbitrary: fc.Arbitrary<AnchorConditions> = fc.record(
  {
    temperatureKelvin: fc.double({ min: 0, max: 10_000, noNaN: true }),
    humidityPercent: fc.double({ min: 0, max: 100, noNaN: true }),
    fieldTesla: fc.oneof(fc.double({ min: 0, max: 1e-3, noNaN: true }), fc.double({ min: 0, max: 100, noNaN: true })),
    qubitConfiguration: fc.stringMatching(/^[01]{1,12}$/),
    superpositionStabilityPercent: fc.double({ min: 0, max: 100, noNaN: true }),
  },
  { requiredKeys: [] },
);

/** Moves every stated (or reference) condition a random amount in the harsher direction. */
const harsherPair = fc
  .tuple(conditionsArbitrary, fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), fc.nat(12))
  .map(([mild, t, h, b, s, drop]) => {
    const temperature = mild.temperatureKelvin ?? 293.15;
    const farther = temperature >= 293.15 ? temperature + t * (10_000 - temperature) : temperature - t * temperature;
    const qubits = mild.qubitConfiguration ?? '0';
    const kept = qubits.slice(0, Math.max(1, qubits.length - drop));
    const harsh: AnchorConditions = {
      temperatureKelvin: farther,
      humidityPercent: (mild.humidityPercent ?? 45) + h * (100 - (mild.humidityPercent ?? 45)),
      fieldTesla: (mild.fieldTesla ?? 50e-6) + b * (100 - (mild.fieldTesla ?? 50e-6)) * b * b,
      qubitConfiguration: mild.qubitConfiguration === undefined ? undefined : kept.replace('0', s > 0.5 ? '1' : '0'),
      superpositionStabilityPercent: (mild.superpositionStabilityPercent ?? 99.9) * (1 - s),
    };
    if (harsh.qubitConfiguration === undefined) delete harsh.qubitConfiguration;
    return { mild, harsh };
  });

test('harsher conditions never give a better status or a smaller predicted error (microsecond)', () => {
  fc.assert(
    fc.property(harsherPair, ({ mild, harsh }) => {
      const a = check(mild);
      const b = check(harsh);
      assert.ok(b.predictedErrorSeconds >= a.predictedErrorSeconds, `${b.predictedErrorSeconds} < ${a.predictedErrorSeconds}`);
      assert.ok(rank[b.status] >= rank[a.status], `${b.status} after ${a.status}`);
    }),
    { numRuns: 400 },
  );
});

test('harsher conditions never give a better status (nanosecond) and nanosecond is never looser than microsecond', () => {
  fc.assert(
    fc.property(harsherPair, ({ mild, harsh }) => {
      const a = check(mild, 'nanosecond');
      const b = check(harsh, 'nanosecond');
      assert.ok(rank[b.status] >= rank[a.status], `${b.status} after ${a.status}`);
      assert.ok(rank[a.status] >= rank[check(mild, 'microsecond').status]);
      assert.ok(rank[b.status] >= rank[check(harsh, 'microsecond').status]);
    }),
    { numRuns: 12 },
  );
});

test.run();
