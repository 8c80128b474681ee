import { civilFromDays, daysFromCivil, daysInMonth, MAX_YEAR, MIN_YEAR } from './calendar.ts';
import { epochSecondsFrom, MAX_EPOCH_SECONDS, MIN_EPOCH_SECONDS, splitEpochSeconds } from './epoch-seconds.ts';
import { TimeFormatError } from './errors.ts';
import { significantFractionDigits } from './instant-formatter.ts';
import type { Instant } from './instant.ts';

/**
 * An ISO 8601 duration, kept by component: years and months are calendar lengths (a month is not a
 * fixed number of seconds), the rest are exact. All components are zero or positive.
 */
export interface Duration {
  years: number;
  months: number;
  weeks: number;
  days: number;
  hours: number;
  minutes: number;
  seconds: bigint;
  nanos: number; // 0..999,999,999
}

export { parseDuration, formatDuration } from './duration-parser.ts';

const NANOS_PER_SECOND = 1_000_000_000;

function outOfRange(): TimeFormatError {
  return new TimeFormatError(`the result is outside the supported years ${MIN_YEAR} to +${MAX_YEAR}`);
}

/**
 * Adds (`sign` 1) or subtracts (`sign` -1) a duration, in UTC. Years and months move first and clamp
 * the day to the end of the month (Jan 31 + P1M = Feb 28/29); then weeks and days; then the exact
 * time. The result keeps the larger of the two precisions. Throws TimeFormatError outside the
 * supported years.
 */
export function addDuration(instant: Instant, duration: Duration, sign: 1 | -1): Instant {
  let seconds = instant.seconds;
  const totalMonths = duration.years * 12 + duration.months;
  if (totalMonths !== 0) {
    if (!Number.isSafeInteger(totalMonths)) throw outOfRange();
    const { days, secondOfDay } = splitEpochSeconds(seconds);
    const date = civilFromDays(days);
    const monthIndex = date.year * 12 + (date.month - 1) + sign * totalMonths;
    const year = Math.floor(monthIndex / 12);
    if (year < MIN_YEAR || year > MAX_YEAR) throw outOfRange();
    const month = monthIndex - year * 12 + 1;
    const day = Math.min(date.day, daysInMonth(year, month));
    seconds = epochSecondsFrom(daysFromCivil(year, month, day), secondOfDay);
  }

  const bigSign = BigInt(sign);
  const wholeDays = BigInt(duration.weeks) * 7n + BigInt(duration.days);
  const exactSeconds =
    wholeDays * 86_400n + BigInt(duration.hours) * 3600n + BigInt(duration.minutes) * 60n + duration.seconds;
  seconds += bigSign * exactSeconds;
  let nanos = instant.nanos + sign * duration.nanos;
  if (nanos < 0) {
    nanos += NANOS_PER_SECOND;
    seconds -= 1n;
  } else if (nanos >= NANOS_PER_SECOND) {
    nanos -= NANOS_PER_SECOND;
    seconds += 1n;
  }
  if (seconds < MIN_EPOCH_SECONDS || seconds > MAX_EPOCH_SECONDS) throw outOfRange();
  const fractionDigits = Math.max(instant.fractionDigits, significantFractionDigits(duration.nanos));
  return { seconds, nanos, fractionDigits };
}
