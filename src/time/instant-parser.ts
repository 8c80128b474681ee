import { daysFromCivil, daysInMonth, MAX_YEAR, MIN_YEAR } from './calendar.ts';
import { epochSecondsFrom, MAX_EPOCH_SECONDS, MIN_EPOCH_SECONDS } from './epoch-seconds.ts';
import { quoteInput, TimeFormatError } from './errors.ts';
import type { Instant } from './instant.ts';

const EXPECTED = 'not an ISO 8601 timestamp (expected YYYY-MM-DDTHH:MM:SS[.fffffffff]Z or an offset)';

const DIGIT_0 = 48;
const PLUS = 43;
const COMMA = 44;
const MINUS = 45;
const DOT = 46;
const COLON = 58;
const SPACE = 32;
const UPPER_T = 84;
const LOWER_T = 116;
const UPPER_Z = 90;
const LOWER_Z = 122;

const MAX_FRACTION_DIGITS = 9;
const MIN_SIGNED_YEAR_DIGITS = 4;
const MAX_SIGNED_YEAR_DIGITS = 9;

function fail(text: string, reason: string): TimeFormatError {
  return new TimeFormatError(`${EXPECTED}: got ${quoteInput(text)}: ${reason}`);
}

function digitAt(text: string, index: number): number {
  const value = text.charCodeAt(index) - DIGIT_0;
  return value >= 0 && value <= 9 ? value : -1;
}

/** A two-digit field at `index`, or -1 when either character is not a digit. */
function twoDigitsAt(text: string, index: number): number {
  const tens = digitAt(text, index);
  const ones = digitAt(text, index + 1);
  return tens < 0 || ones < 0 ? -1 : tens * 10 + ones;
}

function describeAt(text: string, index: number): string {
  return index >= text.length ? 'the end of the text' : `${JSON.stringify(text[index])} at character ${index + 1}`;
}

function expectChar(text: string, index: number, code: number, what: string): void {
  if (text.charCodeAt(index) !== code) {
    throw fail(text, `expected ${what} but found ${describeAt(text, index)}`);
  }
}

function readTwoDigits(text: string, index: number, name: string): number {
  const value = twoDigitsAt(text, index);
  if (value < 0) throw fail(text, `expected a 2-digit ${name} but found ${describeAt(text, index)}`);
  return value;
}

function checkRange(text: string, name: string, value: number, max: number, min = 0): void {
  if (value < min || value > max) {
    throw fail(text, `${name} ${twoDigitsText(value)} is out of range ${twoDigitsText(min)}-${twoDigitsText(max)}`);
  }
}

function twoDigitsText(value: number): string {
  return value < 10 ? `0${value}` : `${value}`;
}

interface YearField {
  year: number;
  end: number;
}

function readYear(text: string, signed: boolean): YearField {
  const start = signed ? 1 : 0;
  let end = start;
  let year = 0;
  for (let digit = digitAt(text, end); digit >= 0; digit = digitAt(text, ++end)) year = year * 10 + digit;
  const count = end - start;
  if (signed) {
    if (count < MIN_SIGNED_YEAR_DIGITS || count > MAX_SIGNED_YEAR_DIGITS) {
      throw fail(text, `a signed (expanded) year needs ${MIN_SIGNED_YEAR_DIGITS} to ${MAX_SIGNED_YEAR_DIGITS} digits, found ${count}`);
    }
    return { year: text.charCodeAt(0) === MINUS ? -year : year, end };
  }
  if (count === 4) return { year, end };
  if (count === 8 && text.charCodeAt(count) === UPPER_T) {
    throw fail(text, 'the ISO 8601 basic form (no "-" or ":") is not accepted; use the extended form, e.g. 2025-01-01T00:00:00Z');
  }
  if (count > 4) throw fail(text, `a year of more than 4 digits needs a sign (ISO 8601 expanded form, e.g. +${text.slice(0, count).padStart(6, '0')})`);
  throw fail(text, `expected a 4-digit year but found ${describeAt(text, count)}`);
}

/**
 * Parses an ISO 8601 / RFC 3339 timestamp with a `Z` or ±HH:MM offset, normalised to UTC. Keeps the
 * fractional digits as sent (up to 9). Years are astronomical (0000 = 1 BC, -0044 = 45 BC) and may use
 * the expanded form: a sign and 4 to 9 digits. A date alone is not an instant.
 */
export function parseInstant(text: string): Instant {
  if (typeof text !== 'string') throw new TimeFormatError(`${EXPECTED}: got ${typeof text}, not a string`);
  if (text.length === 0) throw fail(text, 'the text is empty');

  const first = text.charCodeAt(0);
  const { year, end: yearEnd } = readYear(text, first === PLUS || first === MINUS);
  let i = yearEnd;
  expectChar(text, i, MINUS, `"-" after the year`);
  const month = readTwoDigits(text, i + 1, 'month');
  expectChar(text, i + 3, MINUS, `"-" after the month`);
  const day = readTwoDigits(text, i + 4, 'day');
  i += 6;
  checkRange(text, 'month', month, 12, 1);
  const lastDay = daysInMonth(year, month);
  if (day < 1 || day > lastDay) {
    const why = month === 2 && day === 29 ? ` (${year} is not a leap year)` : '';
    throw fail(text, `day ${twoDigitsText(day)} is out of range 01-${lastDay} for this month${why}`);
  }

  if (i === text.length) throw fail(text, 'a date alone is not an instant; add a time and an offset, e.g. T00:00:00Z');
  const separator = text.charCodeAt(i);
  if (separator !== UPPER_T && separator !== LOWER_T && separator !== SPACE) {
    throw fail(text, `expected "T" between the date and the time but found ${describeAt(text, i)}`);
  }
  const hour = readTwoDigits(text, i + 1, 'hour');
  expectChar(text, i + 3, COLON, `":" after the hour`);
  const minute = readTwoDigits(text, i + 4, 'minute');
  if (text.charCodeAt(i + 6) !== COLON) throw fail(text, 'seconds are required (HH:MM:SS)');
  const second = readTwoDigits(text, i + 7, 'second');
  i += 9;
  checkRange(text, 'hour', hour, 23);
  checkRange(text, 'minute', minute, 59);
  if (second === 60) throw fail(text, 'second 60 (a leap second) is not supported; use 59 or the next minute');
  checkRange(text, 'second', second, 59);

  let nanos = 0;
  let fractionDigits = 0;
  const mark = text.charCodeAt(i);
  if (mark === DOT || mark === COMMA) {
    const fractionStart = ++i;
    for (let digit = digitAt(text, i); digit >= 0; digit = digitAt(text, ++i)) {
      if (i - fractionStart < MAX_FRACTION_DIGITS) nanos = nanos * 10 + digit;
    }
    fractionDigits = i - fractionStart;
    if (fractionDigits === 0) throw fail(text, 'the decimal point must be followed by digits');
    if (fractionDigits > MAX_FRACTION_DIGITS) {
      throw fail(text, `at most ${MAX_FRACTION_DIGITS} fractional digits (nanoseconds) are kept, found ${fractionDigits}`);
    }
    nanos *= 10 ** (MAX_FRACTION_DIGITS - fractionDigits);
  }

  let offsetSeconds = 0;
  const zone = text.charCodeAt(i);
  if (zone === UPPER_Z || zone === LOWER_Z) {
    i += 1;
  } else if (zone === PLUS || zone === MINUS) {
    const offsetHour = readTwoDigits(text, i + 1, 'offset hour');
    expectChar(text, i + 3, COLON, `":" in the offset (±HH:MM)`);
    const offsetMinute = readTwoDigits(text, i + 4, 'offset minute');
    checkRange(text, 'offset hour', offsetHour, 23);
    checkRange(text, 'offset minute', offsetMinute, 59);
    offsetSeconds = (zone === MINUS ? -1 : 1) * (offsetHour * 3600 + offsetMinute * 60);
    i += 6;
  } else if (i === text.length) {
    throw fail(text, 'a UTC offset is required (Z or ±HH:MM)');
  } else if (zone === SPACE && /^ \d\d:\d\d$/.test(text.slice(i))) {
    throw fail(text, 'a space where the offset\'s sign should be (in a query string, a "+" sent unencoded arrives as a space: send it as %2B)');
  } else {
    throw fail(text, `expected a fraction, "Z" or an offset ±HH:MM but found ${describeAt(text, i)}`);
  }
  if (i !== text.length) throw fail(text, `unexpected text after the offset: ${describeAt(text, i)}`);

  const days = daysFromCivil(year, month, day);
  const seconds = epochSecondsFrom(days, hour * 3600 + minute * 60 + second - offsetSeconds);
  if (seconds < MIN_EPOCH_SECONDS || seconds > MAX_EPOCH_SECONDS) {
    throw fail(text, `in UTC it falls outside the supported years ${MIN_YEAR} to +${MAX_YEAR}`);
  }
  return { seconds, nanos, fractionDigits };
}
