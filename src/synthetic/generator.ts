import type { GenesisEvent } from '../store/types.ts';
import type { Instant } from '../time/index.ts';

export interface SyntheticOptions {
  events: number;
  places: number;
  seed?: number;
  /** Average causes per event (links ≈ events × this). */
  meanCauses?: number;
  /** First event's time, in epoch seconds; events are one to 120 minutes apart. */
  startSeconds?: bigint;
}

/** mulberry32: a tiny, fast, seeded PRNG, so the same seed builds the same timeline. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const syntheticEventId = (i: number): string => `syn-${String(i).padStart(9, '0')}`;
export const syntheticPlaceName = (i: number): string => `Place ${i}, Region ${i % 50}`;

/** How far back causes reach: a window keeps memory constant however many events are generated. */
const CAUSE_WINDOW = 1000;

/**
 * Streams `events` events in time order over `places` places, each caused by earlier events only
 * (a DAG whose edges all point forward in time). Nothing is kept but the next id and time.
 */
export function* generateSyntheticEvents(options: SyntheticOptions): Generator<GenesisEvent> {
  const random = seededRandom(options.seed ?? 1);
  const meanCauses = options.meanCauses ?? 2;
  let seconds = options.startSeconds ?? -2_208_988_800n; // 1900-01-01T00:00:00Z
  for (let i = 0; i < options.events; i++) {
    seconds += BigInt(60 + Math.floor(random() * 7140));
    const causes = new Set<string>();
    const wanted = i === 0 ? 0 : Math.min(i, Math.floor(random() * (2 * meanCauses + 1)));
    while (causes.size < wanted) causes.add(syntheticEventId(i - 1 - Math.floor(random() * Math.min(i, CAUSE_WINDOW))));
    const place = Math.floor(random() * options.places);
    const time: Instant = { seconds, nanos: 0, fractionDigits: 0 };
    yield {
      event_id: syntheticEventId(i),
      description: `Synthetic event ${i}`,
      time,
      location: syntheticPlaceName(place),
      causes: [...causes],
    };
  }
}
