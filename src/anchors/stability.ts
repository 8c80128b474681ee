/**
 * Anchor stability: the anchor is modelled as a clock that must hold its pinned instant for a holding
 * interval T, and its expected time error over T is compared with the required accuracy.
 *
 * Model (fractional frequency y, dimensionless; every coefficient is a plain, documented choice, not a
 * measured device):
 *   Systematic offset y0 = yT + yH + yB, each ≥ 0, so a harsher condition never cancels another:
 *     temperature  yT = 4e-13 /K² · ΔT²        ΔT = T − 293.15 K (a crystal's parabolic turnover curve)
 *     humidity     yH = 5e-10 · (RH/100)²      (moisture loading)
 *     field        yB = 2e-10 /T · B + 1e-9 /T² · B²   (linear plus quadratic Zeeman shift)
 *   White FM noise, level h = σ_y(1 s), independent sources adding in quadrature:
 *     temperature  hT = 2e-12 /K · |ΔT|
 *     humidity     hH = 2e-10 · RH/100
 *     field        hB = 1e-9 /T · B
 *     quantum      hQ = 1e-8 · √(L + 1e-4) / √Neff,  L = 1 − stability/100 (superposition loss),
 *                  Neff = ground-state qubits + ½ · excited qubits (an excited qubit decays, so it averages
 *                  down the noise only half as well); with no quantum state given, one qubit at 99.9 %.
 *   Unstated conditions take the reference values: 293.15 K, 45 %, 50 µT (the Earth's field).
 *
 * The noise is simulated, not assumed: N white-FM frequency samples over T (10^4 for microsecond anchors,
 * 2^20 for nanosecond ones, whose tolerance is a thousand times tighter and needs the tighter estimate) are
 * integrated into phase; the overlapping Allan deviation at τ = τ0·10^k gives the noise level, and
 *   predicted error |x(T)| ≈ |y0|·T + σ_y(T)·T
 * is compared with the tolerance (1e-6 s or 1e-9 s): Stable ≤ tolerance, Unstable ≤ 10× tolerance, else
 * Critical. The noise realisation is seeded by the anchor id alone (common random numbers): the anchor's own
 * noise, scaled by its conditions. So the same anchor and conditions always give the same answer, and a
 * harsher condition can never come out better by the luck of a different draw.
 */
import { simulateClock } from './clock-simulation.ts';
import type { AllanPoint, ClockSimulation } from './clock-simulation.ts';
import type { AnchorConditions } from './units.ts';

export type AnchorAccuracy = 'microsecond' | 'nanosecond';
export type AnchorStatus = 'Stable' | 'Unstable' | 'Critical';
export type LimitingFactor = 'temperature' | 'humidity' | 'em_field_strength' | 'quantum_state';

export interface AnchorStabilityInput {
  anchorId: string;
  accuracy: AnchorAccuracy;
  conditions: AnchorConditions;
}

export interface AnchorStability {
  status: AnchorStatus;
  predictedErrorSeconds: number;
  toleranceSeconds: number;
  holdIntervalSeconds: number;
  /** The condition whose share of the predicted error is largest. */
  limitingFactor: LimitingFactor;
  samples: number;
  /** y0, the systematic fractional frequency offset. */
  frequencyOffset: number;
  /** h, the white FM level (σ_y at 1 s) the conditions set. */
  noiseLevel: number;
  allanDeviation: AllanPoint[];
  /** Log-log slope of the simulated Allan deviation (−1/2 for white FM). */
  allanSlope: number;
  /** Each condition's share: its own offset·T plus its own noise's σ_y(T)·T. */
  contributions: Record<LimitingFactor, number>;
}

export const HOLD_INTERVAL_SECONDS = 1;
export const REFERENCE_TEMPERATURE_KELVIN = 293.15;
export const REFERENCE_HUMIDITY_PERCENT = 45;
export const REFERENCE_FIELD_TESLA = 50e-6;
const DEFAULT_SUPERPOSITION_PERCENT = 99.9;

export const TOLERANCE_SECONDS: Record<AnchorAccuracy, number> = { microsecond: 1e-6, nanosecond: 1e-9 };
/** Ten times the tolerance, written out: 10 * 1e-6 is a hair below 1e-5 in binary floating point. */
export const CRITICAL_ABOVE_SECONDS: Record<AnchorAccuracy, number> = { microsecond: 1e-5, nanosecond: 1e-8 };
export const SAMPLES: Record<AnchorAccuracy, number> = { microsecond: 10_000, nanosecond: 1 << 20 };

const FACTORS: readonly LimitingFactor[] = ['temperature', 'humidity', 'em_field_strength', 'quantum_state'];

interface Disturbance {
  offset: Record<LimitingFactor, number>;
  noise: Record<LimitingFactor, number>;
}

/** The model above: what each condition does to the clock's frequency. */
export function disturbance(conditions: AnchorConditions): Disturbance {
  const deltaT = (conditions.temperatureKelvin ?? REFERENCE_TEMPERATURE_KELVIN) - REFERENCE_TEMPERATURE_KELVIN;
  const humidity = (conditions.humidityPercent ?? REFERENCE_HUMIDITY_PERCENT) / 100;
  const field = conditions.fieldTesla ?? REFERENCE_FIELD_TESLA;
  const loss = 1 - (conditions.superpositionStabilityPercent ?? DEFAULT_SUPERPOSITION_PERCENT) / 100;
  return {
    offset: {
      temperature: 4e-13 * deltaT * deltaT,
      humidity: 5e-10 * humidity * humidity,
      em_field_strength: 2e-10 * field + 1e-9 * field * field,
      quantum_state: 0,
    },
    noise: {
      temperature: 2e-12 * Math.abs(deltaT),
      humidity: 2e-10 * humidity,
      em_field_strength: 1e-9 * field,
      quantum_state: (1e-8 * Math.sqrt(Math.max(loss, 0) + 1e-4)) / Math.sqrt(effectiveQubits(conditions.qubitConfiguration)),
    },
  };
}

function effectiveQubits(configuration: string | undefined): number {
  if (configuration === undefined) return 1;
  let effective = 0;
  for (const digit of configuration) effective += digit === '0' ? 1 : 0.5;
  return effective;
}

export function statusFor(predictedErrorSeconds: number, accuracy: AnchorAccuracy): AnchorStatus {
  if (predictedErrorSeconds <= TOLERANCE_SECONDS[accuracy]) return 'Stable';
  return predictedErrorSeconds <= CRITICAL_ABOVE_SECONDS[accuracy] ? 'Unstable' : 'Critical';
}

/**
 * The anchor's own noise at unit level (h = 1, no offset): the costly part of a check, and a pure function of
 * the anchor's id and accuracy, so the same for every check and adjustment of that anchor. Microsecond
 * anchors take well under a millisecond, nanosecond ones tens of ms.
 */
export function simulateUnitNoise(anchorId: string, accuracy: AnchorAccuracy): ClockSimulation {
  const seedKey = `anchor-noise\u0000${anchorId}`;
  return simulateClock({ offset: 0, noiseLevel: 1, holdSeconds: HOLD_INTERVAL_SECONDS, samples: SAMPLES[accuracy], seedKey });
}

/** Pure and deterministic: the anchor's conditions applied to its unit noise (simulated here unless given). */
export function computeAnchorStability(
  input: AnchorStabilityInput,
  unit: ClockSimulation = simulateUnitNoise(input.anchorId, input.accuracy),
): AnchorStability {
  const hold = HOLD_INTERVAL_SECONDS;
  const samples = SAMPLES[input.accuracy];
  const tolerance = TOLERANCE_SECONDS[input.accuracy];
  const { offset, noise } = disturbance(input.conditions);
  const unitDeviationAtHold = unit.estimatedNoiseLevel / Math.sqrt(hold);

  const frequencyOffset = FACTORS.reduce((sum, factor) => sum + offset[factor], 0);
  const noiseLevel = Math.sqrt(FACTORS.reduce((sum, factor) => sum + noise[factor] ** 2, 0));
  const predictedErrorSeconds = Math.abs(frequencyOffset) * hold + noiseLevel * unitDeviationAtHold * hold;
  const contributions = Object.fromEntries(
    FACTORS.map((factor) => [factor, offset[factor] * hold + noise[factor] * unitDeviationAtHold * hold]),
  ) as Record<LimitingFactor, number>;
  const limitingFactor = FACTORS.reduce((best, factor) => (contributions[factor] > contributions[best] ? factor : best));

  return {
    status: statusFor(predictedErrorSeconds, input.accuracy),
    predictedErrorSeconds,
    toleranceSeconds: tolerance,
    holdIntervalSeconds: hold,
    limitingFactor,
    samples,
    frequencyOffset,
    noiseLevel,
    allanDeviation: unit.allan.map((point) => ({ tauSeconds: point.tauSeconds, deviation: noiseLevel * point.deviation })),
    allanSlope: unit.allanSlope,
    contributions,
  };
}

/** The figures as the API sends them (tms.v1.AnchorFigures, snake_case JSON). */
export function anchorFiguresJson(stability: AnchorStability): {
  predicted_error_seconds: number;
  tolerance_seconds: number;
  hold_interval_seconds: number;
  limiting_factor: LimitingFactor;
  samples: number;
} {
  return {
    predicted_error_seconds: stability.predictedErrorSeconds,
    tolerance_seconds: stability.toleranceSeconds,
    hold_interval_seconds: stability.holdIntervalSeconds,
    limiting_factor: stability.limitingFactor,
    samples: stability.samples,
  };
}
