// Shared fast-check generators for the time tests (not a test file itself).
import fc from 'fast-check';
import type { Duration, Instant } from '../../src/time/index.ts';

const SECONDS_SPAN = 10n ** 13n;

/** An instant whose nanos fit its precision, so that formatting then parsing must give it back. */
export const instantArbitrary: fc.Arbitrary<Instant> = fc
  .tuple(fc.bigInt(-SECONDS_SPAN, SECONDS_SPAN), fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 999_999_999 }))
  .map(([seconds, fractionDigits, raw]) => {
    const unit = 10 ** (9 - fractionDigits);
    return { seconds, nanos: Math.floor(raw / unit) * unit, fractionDigits };
  });

function pad(value: number, width: number): string {
  return `${value}`.padStart(width, '0');
}

function isLeap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

const yearArbitrary = fc.oneof(
  fc.integer({ min: 0, max: 9999 }),
  fc.integer({ min: -999_999_999, max: 999_999_999 }),
  fc.constantFrom(-1, -44, -4, -100, 10_000, 99_999, 100_000, -999_999_999, 999_999_999),
);

/** A timestamp already in canonical form, built without the code under test. */
export const canonicalTimestampArbitrary: fc.Arbitrary<string> = fc
  .record({
    year: yearArbitrary,
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 31 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    second: fc.integer({ min: 0, max: 59 }),
    fraction: fc.string({ unit: fc.constantFrom('0', '1', '2', '3', '4', '5', '6', '7', '8', '9'), maxLength: 9 }),
  })
  .map(({ year, month, day, hour, minute, second, fraction }) => {
    const monthLength = [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
    const yearText = year >= 0 && year <= 9999 ? pad(year, 4) : `${year < 0 ? '-' : '+'}${pad(Math.abs(year), 6)}`;
    const fractionText = fraction ? `.${fraction}` : '';
    return `${yearText}-${pad(month, 2)}-${pad(Math.min(day, monthLength), 2)}T${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}${fractionText}Z`;
  });

const small = (max: number): fc.Arbitrary<number> => fc.oneof(fc.constant(0), fc.integer({ min: 0, max }));

export const durationArbitrary: fc.Arbitrary<Duration> = fc.record({
  years: small(3000),
  months: small(40),
  weeks: small(60),
  days: small(400),
  hours: small(100),
  minutes: small(200),
  seconds: fc.oneof(fc.constant(0n), fc.bigInt(0n, 10n ** 9n)),
  nanos: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 999_999_999 })),
}).map((duration) => ({ ...duration })); // fc.record objects have no prototype; deep equality wants plain ones
