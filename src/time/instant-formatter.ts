import { civilFromDays } from './calendar.ts';
import { splitEpochSeconds } from './epoch-seconds.ts';
import type { Instant } from './instant.ts';

function twoDigits(value: number): string {
  return value < 10 ? `0${value}` : `${value}`;
}

/** Years 0000..9999 as four digits; any other year with a sign and at least six digits (ISO 8601 expanded). */
export function formatYear(year: number): string {
  if (year >= 0 && year <= 9999) return `${year}`.padStart(4, '0');
  return `${year < 0 ? '-' : '+'}${`${Math.abs(year)}`.padStart(6, '0')}`;
}

/** The fewest fractional digits that show `nanos` exactly (0 for a whole second). */
export function significantFractionDigits(nanos: number): number {
  if (nanos === 0) return 0;
  let digits = 9;
  let rest = nanos;
  while (rest % 10 === 0) {
    rest /= 10;
    digits -= 1;
  }
  return digits;
}

/**
 * Normalised UTC with `Z`. Prints `fractionDigits` fractional digits, or more if `nanos` needs them:
 * a non-zero digit is never dropped.
 */
export function formatInstant(instant: Instant): string {
  const { days, secondOfDay } = splitEpochSeconds(instant.seconds);
  const { year, month, day } = civilFromDays(days);
  const hour = Math.floor(secondOfDay / 3600);
  const minute = Math.floor((secondOfDay % 3600) / 60);
  const second = secondOfDay % 60;
  const date = `${formatYear(year)}-${twoDigits(month)}-${twoDigits(day)}`;
  const time = `${twoDigits(hour)}:${twoDigits(minute)}:${twoDigits(second)}`;
  const digits = Math.max(instant.fractionDigits, significantFractionDigits(instant.nanos));
  if (digits === 0) return `${date}T${time}Z`;
  const fraction = `${instant.nanos}`.padStart(9, '0').slice(0, digits);
  return `${date}T${time}.${fraction}Z`;
}
