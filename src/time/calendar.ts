// Proleptic Gregorian calendar arithmetic on plain day numbers (days since 1970-01-01), valid for
// every year this module accepts. JavaScript Date is not used: it stops at ±275,760 years.

/** The widest astronomical years accepted (ISO 8601 expanded form with up to 9 year digits). */
export const MIN_YEAR = -999_999_999;
export const MAX_YEAR = 999_999_999;

export const SECONDS_PER_DAY = 86_400;

const DAYS_PER_400_YEARS = 146_097;
// Day number of 0000-03-01: the algorithm counts years from March so that leap days fall last.
const DAYS_FROM_0000_03_01_TO_EPOCH = 719_468;

export function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/** Days since 1970-01-01 of a valid (year, month 1-12, day) date. */
export function daysFromCivil(year: number, month: number, day: number): number {
  const marchYear = month <= 2 ? year - 1 : year;
  const era = Math.floor(marchYear / 400);
  const yearOfEra = marchYear - era * 400;
  const marchMonth = month > 2 ? month - 3 : month + 9;
  const dayOfYear = Math.floor((153 * marchMonth + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * DAYS_PER_400_YEARS + dayOfEra - DAYS_FROM_0000_03_01_TO_EPOCH;
}

export interface CivilDate {
  year: number;
  month: number;
  day: number;
}

/** The date of a day number (days since 1970-01-01); the inverse of daysFromCivil. */
export function civilFromDays(days: number): CivilDate {
  const shifted = days + DAYS_FROM_0000_03_01_TO_EPOCH;
  const era = Math.floor(shifted / DAYS_PER_400_YEARS);
  const dayOfEra = shifted - era * DAYS_PER_400_YEARS;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const marchMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * marchMonth + 2) / 5) + 1;
  const month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return { year, month, day };
}
