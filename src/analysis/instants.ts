import type { CausalGraph } from './causal-graph.ts';

/** A point in time as the analysis sees it: whole seconds since the epoch (exact in a double) and nanos. */
export interface InstantPoint {
  seconds: number;
  nanos: number;
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
  const from = { seconds: Number(window.start.seconds), nanos: window.start.nanos };
  const to = { seconds: Number(window.end.seconds), nanos: window.end.nanos };
  const count = times.seconds.length;
  const inside = new Uint8Array(count);
  for (let event = 0; event < count; event++) {
    if (compareEventTo(times, event, from) >= 0 && compareEventTo(times, event, to) <= 0) inside[event] = 1;
  }
  return inside;
}
