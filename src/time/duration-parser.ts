import type { Duration } from './duration.ts';
import { quoteInput, TimeFormatError } from './errors.ts';
import { significantFractionDigits } from './instant-formatter.ts';

const EXPECTED = 'not an ISO 8601 duration (expected PnYnMnWnDTnHnMnS, e.g. P1DT12H or PT0.5S)';

const DIGIT_0 = 48;
const MAX_COMPONENT_DIGITS = 15; // keeps every Number component exact
const MAX_SECONDS_DIGITS = 18;
const MAX_FRACTION_DIGITS = 9;

function fail(text: string, reason: string): TimeFormatError {
  return new TimeFormatError(`${EXPECTED}: got ${quoteInput(text)}: ${reason}`);
}

function digitAt(text: string, index: number): number {
  const value = text.charCodeAt(index) - DIGIT_0;
  return value >= 0 && value <= 9 ? value : -1;
}

// Designators in the order ISO 8601 requires; the date part ends at 'T'.
const DATE_DESIGNATORS = ['Y', 'M', 'W', 'D'] as const;
const TIME_DESIGNATORS = ['H', 'M', 'S'] as const;
const SECONDS_PER_TIME_UNIT = { H: 3600, M: 60, S: 1 } as const;
/** In UTC, without leap seconds, a day is always 86 400 s; years and months vary, so they take no fraction. */
const SECONDS_PER_DAY_UNIT = { W: 604_800, D: 86_400 } as const;

/**
 * Parses an ISO 8601 duration such as P1Y2M10DT2H30M, P1W, PT90M, PT0.5S, P0.5D or P1DT12H. Designators may
 * be lower case. Only the last component may carry a fraction (up to 9 digits, `.` or `,`), and not one of
 * years or months, whose length varies; a fraction of a week, day, hour or minute is folded into seconds.
 * Negative durations are not accepted.
 */
export function parseDuration(text: string): Duration {
  if (typeof text !== 'string') throw new TimeFormatError(`${EXPECTED}: got ${typeof text}, not a string`);
  if (letterAt(text, 0) !== 'P') {
    if ((text[0] === '-' || text[0] === '+') && letterAt(text, 1) === 'P') throw fail(text, 'a duration cannot carry a sign');
    throw fail(text, 'a duration starts with "P"');
  }
  const duration: Duration = { years: 0, months: 0, weeks: 0, days: 0, hours: 0, minutes: 0, seconds: 0n, nanos: 0 };
  let inTime = false;
  let nextDesignator = 0; // index into the current designator list: components must not repeat or go back
  let components = 0;
  let timeComponents = 0;
  let sawFraction = false;
  let i = 1;
  while (i < text.length) {
    if (letterAt(text, i) === 'T') {
      if (inTime) throw fail(text, '"T" appears twice');
      inTime = true;
      nextDesignator = 0;
      i += 1;
      continue;
    }
    if (sawFraction) throw fail(text, 'only the last component may have a fraction');
    const numberStart = i;
    let whole = 0n;
    for (let digit = digitAt(text, i); digit >= 0; digit = digitAt(text, ++i)) whole = whole * 10n + BigInt(digit);
    const wholeDigits = i - numberStart;
    if (wholeDigits === 0) throw fail(text, `expected a number at character ${i + 1} but found ${describe(text, i)}`);
    let fractionNanos = 0;
    const mark = text[i];
    if (mark === '.' || mark === ',') {
      const fractionStart = ++i;
      for (let digit = digitAt(text, i); digit >= 0; digit = digitAt(text, ++i)) {
        if (i - fractionStart < MAX_FRACTION_DIGITS) fractionNanos = fractionNanos * 10 + digit;
      }
      const fractionDigits = i - fractionStart;
      if (fractionDigits === 0) throw fail(text, 'the decimal point must be followed by digits');
      if (fractionDigits > MAX_FRACTION_DIGITS) throw fail(text, `at most ${MAX_FRACTION_DIGITS} fractional digits are kept, found ${fractionDigits}`);
      fractionNanos *= 10 ** (MAX_FRACTION_DIGITS - fractionDigits);
      sawFraction = true;
    }
    const designator = letterAt(text, i);
    if (designator === undefined) throw fail(text, `the number ${text.slice(numberStart, i)} needs a designator (${inTime ? 'H, M or S' : 'Y, M, W or D; T before a time'})`);
    const order: readonly string[] = inTime ? TIME_DESIGNATORS : DATE_DESIGNATORS;
    const position = order.indexOf(designator);
    if (position < 0) {
      const hint = !inTime && (designator === 'H' || designator === 'S') ? ` (hours, minutes and seconds follow "T", e.g. PT${text.slice(numberStart, i)}${designator})` : '';
      throw fail(text, `unexpected ${JSON.stringify(text[i])} at character ${i + 1}${hint}`);
    }
    if (position < nextDesignator) throw fail(text, `"${designator}" is repeated or out of order (the order is Y, M, W, D, then T, H, M, S)`);
    nextDesignator = position + 1;
    const maxDigits = inTime && designator === 'S' ? MAX_SECONDS_DIGITS : MAX_COMPONENT_DIGITS;
    if (wholeDigits > maxDigits) throw fail(text, `the ${designator} component has more than ${maxDigits} digits`);
    if (inTime) {
      assignTime(duration, designator as keyof typeof SECONDS_PER_TIME_UNIT, whole, fractionNanos);
      timeComponents += 1;
    } else {
      if (sawFraction && (designator === 'Y' || designator === 'M')) {
        throw fail(text, 'a fraction of years or months is not allowed, as their length varies; give weeks, days or hours, e.g. P15D');
      }
      assignDate(duration, designator, Number(whole));
      if (designator === 'W' || designator === 'D') addFraction(duration, SECONDS_PER_DAY_UNIT[designator], fractionNanos);
    }
    components += 1;
    i += 1;
  }
  if (inTime && timeComponents === 0) throw fail(text, '"T" must be followed by hours, minutes or seconds');
  if (components === 0) throw fail(text, 'at least one component is required, e.g. P1D or PT0S');
  return duration;
}

/** The ASCII letter at `index` in upper case (designators may be sent in lower case), or undefined at the end. */
function letterAt(text: string, index: number): string | undefined {
  const char = text[index];
  return char !== undefined && char >= 'a' && char <= 'z' ? char.toUpperCase() : char;
}

function describe(text: string, index: number): string {
  return index >= text.length ? 'the end of the text' : JSON.stringify(text[index]);
}

function assignDate(duration: Duration, designator: string, value: number): void {
  if (designator === 'Y') duration.years = value;
  else if (designator === 'M') duration.months = value;
  else if (designator === 'W') duration.weeks = value;
  else duration.days = value;
}

function assignTime(duration: Duration, designator: 'H' | 'M' | 'S', whole: bigint, fractionNanos: number): void {
  if (designator === 'H') duration.hours = Number(whole);
  else if (designator === 'M') duration.minutes = Number(whole);
  else duration.seconds = whole;
  addFraction(duration, SECONDS_PER_TIME_UNIT[designator], fractionNanos);
}

/** Adds the last component's fraction (in billionths of its unit) as seconds and nanos. */
function addFraction(duration: Duration, secondsPerUnit: number, fractionNanos: number): void {
  if (fractionNanos === 0) return;
  // An exact number of nanoseconds: at most 9 digits × 604 800, within 2^53.
  const nanos = fractionNanos * secondsPerUnit;
  const carrySeconds = Math.floor(nanos / 1_000_000_000);
  duration.seconds += BigInt(carrySeconds);
  duration.nanos = nanos - carrySeconds * 1_000_000_000;
}

/** Canonical text of a duration: components in ISO order, zero ones left out, `PT0S` when all are zero. */
export function formatDuration(duration: Duration): string {
  let date = '';
  if (duration.years) date += `${duration.years}Y`;
  if (duration.months) date += `${duration.months}M`;
  if (duration.weeks) date += `${duration.weeks}W`;
  if (duration.days) date += `${duration.days}D`;
  let time = '';
  if (duration.hours) time += `${duration.hours}H`;
  if (duration.minutes) time += `${duration.minutes}M`;
  if (duration.seconds !== 0n || duration.nanos !== 0) {
    const digits = significantFractionDigits(duration.nanos);
    const fraction = digits === 0 ? '' : `.${`${duration.nanos}`.padStart(9, '0').slice(0, digits)}`;
    time += `${duration.seconds}${fraction}S`;
  }
  if (!date && !time) return 'PT0S';
  return time ? `P${date}T${time}` : `P${date}`;
}
