/**
 * Simulates a clock whose fractional frequency is y(t) = offset + white FM noise, integrates it into the
 * phase (time error) x(t), and estimates the Allan deviation from the phase. Pure arithmetic.
 *
 * White FM noise of level h has σ_y(τ) = h·τ^(-1/2): h is the Allan deviation at τ = 1 s. Sampled every τ0,
 * it is a sequence of independent normal frequency values with standard deviation h/√τ0.
 */
import { SeededNormals } from './random.ts';

export interface ClockSimulationInput {
  /** Constant fractional frequency offset y0 (dimensionless). */
  offset: number;
  /** White FM level h: the Allan deviation at τ = 1 s. */
  noiseLevel: number;
  holdSeconds: number;
  samples: number;
  /** Seeds the noise; the same key gives the same realisation. */
  seedKey: string;
}

export interface AllanPoint {
  tauSeconds: number;
  deviation: number;
}

export interface ClockSimulation {
  /** Simulated phase x(T) at the end of the hold: the time error the clock accumulated, in seconds. */
  finalPhaseSeconds: number;
  /** Overlapping Allan deviation at τ = τ0·10^k. */
  allan: AllanPoint[];
  /** Least-squares slope of log σ against log τ (−1/2 for white FM). */
  allanSlope: number;
  /** The noise level h the Allan points imply under the white FM model, extrapolated as σ_y(T) = h/√T. */
  estimatedNoiseLevel: number;
}

/**
 * The simulation's working arrays, kept for the next simulation on this thread: a nanosecond anchor's two
 * 8-MiB arrays in fresh memory cost more in page faults than the simulation's arithmetic (docs/performance.md).
 * Only figures leave `simulateClock`, never the arrays, so reusing them is safe.
 */
let scratch = new Float64Array(0);

function workingArrays(samples: number): { frequency: Float64Array; phase: Float64Array } {
  if (scratch.length < 2 * samples + 1) scratch = new Float64Array(2 * samples + 1);
  return { frequency: scratch.subarray(0, samples), phase: scratch.subarray(samples, 2 * samples + 1) };
}

export function simulateClock(input: ClockSimulationInput): ClockSimulation {
  const { offset, noiseLevel, holdSeconds, samples } = input;
  const step = holdSeconds / samples;
  const { frequency, phase } = workingArrays(samples);
  new SeededNormals(input.seedKey).fillNormals(frequency);
  const spread = noiseLevel / Math.sqrt(step);
  phase[0] = 0;
  for (let k = 0; k < samples; k++) phase[k + 1] = phase[k]! + (offset + spread * frequency[k]!) * step;

  const allan: AllanPoint[] = [];
  for (let stride = 1; 2 * stride <= samples / 5; stride *= 10) {
    allan.push({ tauSeconds: stride * step, deviation: overlappingAllanDeviation(phase, stride, step) });
  }
  return {
    finalPhaseSeconds: phase[samples]!,
    allan,
    allanSlope: logLogSlope(allan),
    estimatedNoiseLevel: whiteFrequencyLevel(allan, samples, step),
  };
}

/** σ_y(mτ0) from phase samples: the second differences x[i+2m] − 2x[i+m] + x[i], all overlapping windows. */
export function overlappingAllanDeviation(phase: Float64Array, stride: number, step: number): number {
  const terms = phase.length - 2 * stride;
  let sum = 0;
  for (let i = 0; i < terms; i++) {
    const second = phase[i + 2 * stride]! - 2 * phase[i + stride]! + phase[i]!;
    sum += second * second;
  }
  const tau = stride * step;
  return Math.sqrt(sum / (2 * tau * tau * terms));
}

function logLogSlope(points: readonly AllanPoint[]): number {
  if (points.length < 2) return Number.NaN;
  const xs = points.map((p) => Math.log(p.tauSeconds));
  const ys = points.map((p) => Math.log(p.deviation));
  const meanX = xs.reduce((a, b) => a + b, 0) / xs.length;
  const meanY = ys.reduce((a, b) => a + b, 0) / ys.length;
  let covariance = 0;
  let variance = 0;
  for (let k = 0; k < xs.length; k++) {
    covariance += (xs[k]! - meanX) * (ys[k]! - meanY);
    variance += (xs[k]! - meanX) ** 2;
  }
  return covariance / variance;
}

/**
 * h = σ_y(τ)·√τ from each point, averaged with weights proportional to the number of independent τ-long
 * intervals in the hold (short τ are estimated far more precisely than long ones).
 */
function whiteFrequencyLevel(points: readonly AllanPoint[], samples: number, step: number): number {
  let weighted = 0;
  let weights = 0;
  for (const point of points) {
    const weight = (samples * step) / point.tauSeconds;
    weighted += weight * point.deviation * Math.sqrt(point.tauSeconds);
    weights += weight;
  }
  return weights === 0 ? 0 : weighted / weights;
}
