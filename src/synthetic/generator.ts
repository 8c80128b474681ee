import type { Instant } from '../time/index.ts';
import { parseInstant } from '../time/index.ts';
import { mulberry32 } from './prng.ts';

/** Shaped like the store's `GenesisEvent`, so a generator feeds `bulkLoad` directly. */
export interface SyntheticEvent {
  event_id: string;
  description: string;
  time: Instant;
  location: string;
  causes: string[];
}

export interface SyntheticOptions {
  events: number;
  /** Distinct places, named by `syntheticPlaceName(0 .. places - 1)`. */
  places: number;
  seed?: number;
  /** Each event gets 0..maxCauses causes, uniformly, so the mean is maxCauses / 2 (default 4: about 2 links per event). */
  maxCauses?: number;
  /** Events are spread evenly over [start, end); defaults 1900-01-01T00:00:00Z and 2025-01-01T00:00:00Z. */
  start?: Instant;
  end?: Instant;
}

export const SYNTHETIC_DEFAULTS = {
  seed: 1,
  maxCauses: 4,
  start: '1900-01-01T00:00:00Z',
  end: '2025-01-01T00:00:00Z',
} as const;

/** Most causes are drawn from this many preceding events; the rest from anywhere earlier. */
export const RECENT_CAUSE_WINDOW = 1000;
const RECENT_CAUSE_SHARE = 0.9;
const NANOS_PER_SECOND = 1_000_000_000n;

const ID_DIGITS = 9;
const idBytes = Buffer.from(`syn-${'0'.repeat(ID_DIGITS)}`, 'latin1');

/**
 * `syn-` and the index in 9 digits. Made from bytes because a template of 13 or more characters is a V8 cons
 * string, which every Map lookup flattens first: a bulk load's genesis accumulator spent about 2 s of 10^6
 * events on that.
 */
export function syntheticEventId(index: number): string {
  if (!(index >= 0 && index < 10 ** ID_DIGITS && Number.isInteger(index))) return `syn-${String(index).padStart(ID_DIGITS, '0')}`;
  let rest = index;
  for (let at = idBytes.length - 1; at >= idBytes.length - ID_DIGITS; at--) {
    idBytes[at] = 0x30 + (rest % 10);
    rest = Math.floor(rest / 10);
  }
  return idBytes.toString('latin1');
}

/** Ten neighbouring places share a region, so a search can target one place or a region. */
export const syntheticPlaceName = (index: number): string => `Place ${index}, Region ${Math.floor(index / 10)}`;

/**
 * Streams `events` events in time order, each caused only by earlier ones (a DAG whose edges all point
 * forward in time). Deterministic for a seed. Nothing is kept between events: ids and times are computed
 * from the index, so memory stays constant for any count. Bad options throw here, before the first event.
 */
export function generateSyntheticEvents(options: SyntheticOptions): Generator<SyntheticEvent> {
  const count = wholeNumber('events', options.events, 0);
  const places = wholeNumber('places', options.places, 1);
  const maxCauses = wholeNumber('maxCauses', options.maxCauses ?? SYNTHETIC_DEFAULTS.maxCauses, 0);
  const seed = wholeNumber('seed', options.seed ?? SYNTHETIC_DEFAULTS.seed, 0);
  const clock = timeSlots(count, options.start ?? parseInstant(SYNTHETIC_DEFAULTS.start), options.end ?? parseInstant(SYNTHETIC_DEFAULTS.end));
  return stream(count, places, maxCauses, mulberry32(seed), clock);
}

function* stream(count: number, places: number, maxCauses: number, random: () => number, clock: TimeSlots): Generator<SyntheticEvent> {
  for (let index = 0; index < count; index++) {
    const time = clock.next(random());
    const causes: string[] = [];
    const wanted = Math.min(index, Math.floor(random() * (maxCauses + 1)));
    while (causes.length < wanted) {
      const reach = random() < RECENT_CAUSE_SHARE ? Math.min(index, RECENT_CAUSE_WINDOW) : index;
      const cause = syntheticEventId(index - 1 - Math.floor(random() * reach));
      if (!causes.includes(cause)) causes.push(cause);
    }
    const location = syntheticPlaceName(Math.floor(random() * places));
    yield { event_id: syntheticEventId(index), description: `Synthetic event ${index} at ${location}`, time, location, causes };
  }
}

interface TimeSlots {
  next(fraction: number): Instant;
}

/**
 * Splits [start, end) into `count` equal slots and puts one event at a random point of each, so times
 * strictly increase. Whole seconds when a slot is at least a second wide, nanoseconds otherwise.
 */
function timeSlots(count: number, start: Instant, end: Instant): TimeSlots {
  const startNanos = start.seconds * NANOS_PER_SECOND + BigInt(start.nanos);
  const spanNanos = end.seconds * NANOS_PER_SECOND + BigInt(end.nanos) - startNanos;
  if (spanNanos <= 0n) throw new RangeError('synthetic events: end must be after start');
  const slots = BigInt(Math.max(count, 1));
  const firstWholeSecond = start.seconds + (start.nanos > 0 ? 1n : 0n);
  const secondsWidth = (end.seconds - firstWholeSecond) / slots;
  if (secondsWidth >= 1n) {
    let slotStart = firstWholeSecond;
    return {
      next(fraction) {
        const seconds = slotStart + BigInt(Math.floor(fraction * Number(secondsWidth)));
        slotStart += secondsWidth;
        return { seconds, nanos: 0, fractionDigits: 0 };
      },
    };
  }
  const width = spanNanos / slots;
  if (width < 1n) throw new RangeError(`synthetic events: ${count} distinct instants do not fit between start and end`);
  let slotStart = startNanos;
  return {
    next(fraction) {
      const at = slotStart + BigInt(Math.floor(fraction * Number(width)));
      slotStart += width;
      const seconds = at >= 0n ? at / NANOS_PER_SECOND : -((-at + NANOS_PER_SECOND - 1n) / NANOS_PER_SECOND);
      return { seconds, nanos: Number(at - seconds * NANOS_PER_SECOND), fractionDigits: 9 };
    },
  };
}

function wholeNumber(field: string, value: number, minimum: number): number {
  if (!Number.isSafeInteger(value) || value < minimum) {
    throw new RangeError(`synthetic events: ${field} must be a whole number ≥ ${minimum}, got ${value}`);
  }
  return value;
}
