import { TimeFormatError } from './errors.ts';

/** An exact point in time, UTC. Plain data: build it with the functions here or as a literal. */
export interface Instant {
  /** Whole seconds since 1970-01-01T00:00:00Z, floored (negative before the epoch). */
  readonly seconds: bigint;
  /** Nanoseconds after `seconds`: 0..999,999,999. */
  readonly nanos: number;
  /** Fractional digits to print, 0..9: as sent; arithmetic results use the max of their inputs. */
  readonly fractionDigits: number;
}

export { parseInstant } from './instant-parser.ts';
export { formatInstant } from './instant-formatter.ts';

/** -1, 0 or 1 by time alone; `fractionDigits` does not take part. */
export function compareInstants(a: Instant, b: Instant): number {
  if (a.seconds !== b.seconds) return a.seconds < b.seconds ? -1 : 1;
  if (a.nanos !== b.nanos) return a.nanos < b.nanos ? -1 : 1;
  return 0;
}

export function instantFromEpochMilliseconds(milliseconds: number): Instant {
  if (!Number.isSafeInteger(milliseconds)) {
    throw new TimeFormatError(`not a whole number of milliseconds since the epoch: ${milliseconds}`);
  }
  const seconds = Math.floor(milliseconds / 1000);
  return { seconds: BigInt(seconds), nanos: (milliseconds - seconds * 1000) * 1_000_000, fractionDigits: 3 };
}

export function instantFromDate(date: Date): Instant {
  const milliseconds = date.getTime();
  if (Number.isNaN(milliseconds)) throw new TimeFormatError('not a valid date (Invalid Date)');
  return instantFromEpochMilliseconds(milliseconds);
}

export function nowInstant(): Instant {
  return instantFromEpochMilliseconds(Date.now());
}

/** Seconds since the epoch as a float: inexact, for physics and analysis only, never for storage. */
export function instantToEpochSeconds(instant: Instant): number {
  return Number(instant.seconds) + instant.nanos / 1e9;
}
