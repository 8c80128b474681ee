// Builds causal graphs for tests from readable event lists (the store's real builder is not ours to use here).
import type { CausalGraph } from '../../src/analysis/causal-graph.ts';

export interface TestEvent {
  seconds: number;
  nanos?: number;
  cancelled?: boolean;
  causes?: number[];
  manipulatedAtMs?: number;
  traveller?: number;
  place?: number;
}

export function buildGraph(events: readonly TestEvent[]): CausalGraph {
  const count = events.length;
  const causeOffsets = new Int32Array(count + 1);
  const targets: number[] = [];
  events.forEach((event, index) => {
    targets.push(...(event.causes ?? []));
    causeOffsets[index + 1] = targets.length;
  });
  return {
    eventIds: events.map((_, index) => `e${index}`),
    seconds: Float64Array.from(events, (event) => event.seconds),
    nanos: Int32Array.from(events, (event) => event.nanos ?? 0),
    state: Uint8Array.from(events, (event) => (event.cancelled ? 1 : 0)),
    causeOffsets,
    causeTargets: Int32Array.from(targets),
    manipulatedAtMs: Float64Array.from(events, (event) => event.manipulatedAtMs ?? 0),
    traveller: Int32Array.from(events, (event) => event.traveller ?? -1),
    place: Int32Array.from(events, (event) => event.place ?? 0),
  };
}

/** count events one second apart, each caused by the next one (a ring) or by the previous one (a chain). */
export function bigLinkedGraph(count: number, shape: 'ring' | 'chain'): CausalGraph {
  const ring = shape === 'ring';
  const links = ring ? count : count - 1;
  const causeOffsets = new Int32Array(count + 1);
  const causeTargets = new Int32Array(links);
  for (let event = 0; event < count; event++) {
    const hasCause = ring || event > 0;
    causeOffsets[event + 1] = causeOffsets[event]! + (hasCause ? 1 : 0);
    if (hasCause) causeTargets[causeOffsets[event]!] = ring ? (event + 1) % count : event - 1;
  }
  return {
    eventIds: [],
    seconds: Float64Array.from({ length: count }, (_, event) => event),
    nanos: new Int32Array(count),
    state: new Uint8Array(count),
    causeOffsets,
    causeTargets,
    manipulatedAtMs: new Float64Array(count),
    traveller: new Int32Array(count).fill(-1),
    place: new Int32Array(count),
  };
}
