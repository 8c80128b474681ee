import { daysFromCivil, MAX_YEAR, MIN_YEAR, SECONDS_PER_DAY } from './calendar.ts';

// Day numbers stay exact in a double for every supported year, but days × 86,400 does not beyond
// about ±285 million years; below this bound the cheap Number path is exact.
const SAFE_DAYS = 100_000_000_000;
const SECONDS_PER_DAY_BIG = BigInt(SECONDS_PER_DAY);
const MAX_SAFE_BIG = BigInt(Number.MAX_SAFE_INTEGER);

/** Whole seconds since the epoch of a day number plus seconds into that day (any sign). */
export function epochSecondsFrom(days: number, secondsIntoDay: number): bigint {
  if (days < SAFE_DAYS && days > -SAFE_DAYS) return BigInt(days * SECONDS_PER_DAY + secondsIntoDay);
  return BigInt(days) * SECONDS_PER_DAY_BIG + BigInt(secondsIntoDay);
}

export interface DayAndSecond {
  days: number;
  secondOfDay: number; // 0..86,399
}

/** Splits epoch seconds into a floor day number and the second within that day. */
export function splitEpochSeconds(seconds: bigint): DayAndSecond {
  if (seconds <= MAX_SAFE_BIG && seconds >= -MAX_SAFE_BIG) {
    const total = Number(seconds);
    let days = Math.floor(total / SECONDS_PER_DAY);
    let secondOfDay = total - days * SECONDS_PER_DAY;
    // The float division can round across a day boundary; the remainder is exact, so fix it up.
    if (secondOfDay < 0) {
      days -= 1;
      secondOfDay += SECONDS_PER_DAY;
    } else if (secondOfDay >= SECONDS_PER_DAY) {
      days += 1;
      secondOfDay -= SECONDS_PER_DAY;
    }
    return { days, secondOfDay };
  }
  let days = seconds / SECONDS_PER_DAY_BIG;
  let remainder = seconds - days * SECONDS_PER_DAY_BIG;
  if (remainder < 0n) {
    days -= 1n;
    remainder += SECONDS_PER_DAY_BIG;
  }
  return { days: Number(days), secondOfDay: Number(remainder) };
}

/** The first and last second of the supported years (-999999999-01-01 to +999999999-12-31). */
export const MIN_EPOCH_SECONDS = epochSecondsFrom(daysFromCivil(MIN_YEAR, 1, 1), 0);
export const MAX_EPOCH_SECONDS = epochSecondsFrom(daysFromCivil(MAX_YEAR, 12, 31), SECONDS_PER_DAY - 1);
