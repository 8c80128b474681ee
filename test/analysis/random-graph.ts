// A seeded random causal graph with every kind of paradox in it, built straight into typed arrays.
import type { CausalGraph } from '../../src/analysis/causal-graph.ts';

/** A deterministic xorshift source in [0, 1), so a failure can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4_294_967_296;
  };
}

/** `count` events about 1 s apart; ~`linksPerEvent` causes each, mostly earlier ones, a few later. */
export function randomGraph(count: number, linksPerEvent: number, seed: number): CausalGraph {
  const random = seededRandom(seed);
  const causeOffsets = new Int32Array(count + 1);
  const targets: number[] = [];
  for (let event = 0; event < count; event++) {
    const links = Math.floor(random() * (2 * linksPerEvent + 1));
    for (let k = 0; k < links && event > 0; k++) {
      const backwards = random() < 0.995;
      targets.push(backwards ? Math.floor(random() * event) : Math.min(count - 1, event + 1 + Math.floor(random() * 50)));
    }
    causeOffsets[event + 1] = targets.length;
  }
  return {
    eventIds: Array.from({ length: count }, (_, event) => `ev-${event}`),
    seconds: Float64Array.from({ length: count }, (_, event) => event + Math.floor(random() * 3)),
    nanos: Int32Array.from({ length: count }, () => Math.floor(random() * 1e9)),
    state: Uint8Array.from({ length: count }, () => (random() < 0.02 ? 1 : 0)),
    causeOffsets,
    causeTargets: Int32Array.from(targets),
    manipulatedAtMs: Float64Array.from({ length: count }, () => (random() < 0.05 ? 500 + Math.floor(random() * 4_000) : 0)),
    traveller: Int32Array.from({ length: count }, () => (random() < 0.01 ? Math.floor(random() * 3) : -1)),
    place: Int32Array.from({ length: count }, () => Math.floor(random() * 4)),
  };
}
