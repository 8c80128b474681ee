import type { CausalGraph } from './causal-graph.ts';

/**
 * A point in time as the analysis sees it, in two numbers that stay exact in doubles for every year tms accepts:
 * `seconds` since the epoch and `nanos` after them. Within ±2^53 s (about ±285 million years) `seconds` is the
 * instant's whole second and `nanos` 0..999 999 999. Beyond, where a double holds only every fourth second,
 * `seconds` is the multiple of 4 nearest the whole second and `nanos` the rest, −2·10^9 up to 2·10^9 (an Int32).
 * Either way the instant is exactly `seconds` + `nanos`·10^-9, and `seconds` never decreases as instants
 * increase, so instants compare by `seconds`, then by `nanos`.
 */
export interface InstantPoint {
  seconds: number;
  nanos: number;
}

const SAFE_SECONDS = 2n ** 53n;
const SAFE_SECONDS_BELOW = -SAFE_SECONDS;
/** 2^55: multiples of 4 below it are exact in a double; the supported years end at about 3.2·10^16 s. */
const HELD_LIMIT = 2n ** 55n;
const NANOS_PER_SECOND = 1_000_000_000;

/** The point of an instant given as whole seconds since the epoch and nanos 0..999 999 999. */
export function instantPoint(seconds: bigint, nanos: number): InstantPoint {
  if (seconds < SAFE_SECONDS && seconds > SAFE_SECONDS_BELOW) return { seconds: Number(seconds), nanos };
  if (seconds >= HELD_LIMIT || seconds <= -HELD_LIMIT) throw new RangeError(`seconds ${seconds} beyond the supported years`);
  const held = ((seconds + 2n) >> 2n) << 2n;
  return { seconds: Number(held), nanos: Number(seconds - held) * NANOS_PER_SECOND + nanos };
}

/** The instant a point stands for, as whole seconds since the epoch and nanos 0..999 999 999: `instantPoint` undone. */
export function pointInstant(point: InstantPoint): { seconds: bigint; nanos: number } {
  const carried = Math.floor(point.nanos / NANOS_PER_SECOND);
  return { seconds: BigInt(point.seconds) + BigInt(carried), nanos: point.nanos - carried * NANOS_PER_SECOND };
}

/**
 * Inclusive at both ends, like the `time_range` it comes from. Shaped like `Interval` from src/time (whose
 * instants carry bigint seconds), so a parsed time_range is passed as it is.
 */
export interface AnalysisWindow {
  start: { readonly seconds: number | bigint; readonly nanos: number };
  end: { readonly seconds: number | bigint; readonly nanos: number };
}

type Times = Pick<CausalGraph, 'seconds' | 'nanos'>;

/** Negative, zero or positive as event a is before, with or after event b. */
export function compareEvents(times: Times, a: number, b: number): number {
  const seconds = times.seconds[a]! - times.seconds[b]!;
  return seconds !== 0 ? seconds : times.nanos[a]! - times.nanos[b]!;
}

/** Negative, zero or positive as the event is before, at or after the instant. */
export function compareEventTo(times: Times, event: number, instant: InstantPoint): number {
  const seconds = times.seconds[event]! - instant.seconds;
  return seconds !== 0 ? seconds : times.nanos[event]! - instant.nanos;
}

export function compareInstantPoints(a: InstantPoint, b: InstantPoint): number {
  const seconds = a.seconds - b.seconds;
  return seconds !== 0 ? seconds : a.nanos - b.nanos;
}

/** One flag per event: 1 when the event's time lies inside the window. */
export function eventsInWindow(times: Times, window: AnalysisWindow): Uint8Array {
  const from = instantPoint(BigInt(window.start.seconds), window.start.nanos);
  const to = instantPoint(BigInt(window.end.seconds), window.end.nanos);
  const count = times.seconds.length;
  const inside = new Uint8Array(count);
  for (let event = 0; event < count; event++) {
    if (compareEventTo(times, event, from) >= 0 && compareEventTo(times, event, to) <= 0) inside[event] = 1;
  }
  return inside;
}
