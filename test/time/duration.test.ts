import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Duration } from '../../src/time/index.ts';
import { addDuration, formatDuration, formatInstant, parseDuration, parseInstant, TimeFormatError } from '../../src/time/index.ts';
import { durationArbitrary, instantArbitrary } from './arbitraries.ts';

const ZERO: Duration = { years: 0, months: 0, weeks: 0, days: 0, hours: 0, minutes: 0, seconds: 0n, nanos: 0 };

function errorOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    assert.instance(error, TimeFormatError);
    return (error as Error).message;
  }
  assert.unreachable('expected a TimeFormatError');
  return '';
}

const parsing = suite('parseDuration');

const parsed: Array<[text: string, expected: Partial<Duration>]> = [
  ['P1Y2M10DT2H30M', { years: 1, months: 2, days: 10, hours: 2, minutes: 30 }],
  ['P1W', { weeks: 1 }],
  ['PT90M', { minutes: 90 }],
  ['PT0.5S', { nanos: 500_000_000 }],
  ['PT0,25S', { nanos: 250_000_000 }],
  ['P1DT12H', { days: 1, hours: 12 }],
  ['PT1.5H', { hours: 1, seconds: 1800n }],
  ['PT2.25M', { minutes: 2, seconds: 15n }],
  ['PT0.000000001H', { nanos: 3600 }],
  ['PT1.123456789S', { seconds: 1n, nanos: 123_456_789 }],
  ['PT0S', {}],
  ['P0D', {}],
  ['p1y2m3w4dt5h6m7s', { years: 1, months: 2, weeks: 3, days: 4, hours: 5, minutes: 6, seconds: 7n }],
  ['PT999999999999999999S', { seconds: 999_999_999_999_999_999n }],
  ['P0.5D', { seconds: 43_200n }],
  ['P1.5D', { days: 1, seconds: 43_200n }],
  ['P0,1W', { seconds: 60_480n }],
  ['P2DT0.5S', { days: 2, nanos: 500_000_000 }],
  ['P0.000000001D', { nanos: 86_400 }],
  ['P1.999999999W', { weeks: 1, seconds: 604_799n, nanos: 999_395_200 }],
];

for (const [text, expected] of parsed) {
  parsing(`${text}`, () => {
    assert.equal(parseDuration(text), { ...ZERO, ...expected });
  });
}

const rejected: Array<[text: string, reason: string]> = [
  ['', 'a duration starts with "P"'],
  ['1D', 'a duration starts with "P"'],
  ['-P1D', 'a duration cannot carry a sign'],
  ['P', 'at least one component is required, e.g. P1D or PT0S'],
  ['PT', '"T" must be followed by hours, minutes or seconds'],
  ['P1DT', '"T" must be followed by hours, minutes or seconds'],
  ['P1', 'the number 1 needs a designator (Y, M, W or D; T before a time)'],
  ['PT5', 'the number 5 needs a designator (H, M or S)'],
  ['P1H', 'unexpected "H" at character 3 (hours, minutes and seconds follow "T", e.g. PT1H)'],
  ['PT1D', 'unexpected "D" at character 4'],
  ['P1D2Y', '"Y" is repeated or out of order (the order is Y, M, W, D, then T, H, M, S)'],
  ['P1D1D', '"D" is repeated or out of order'],
  ['PT1S1M', '"M" is repeated or out of order'],
  ['PT1HT1M', '"T" appears twice'],
  ['P1.5Y', 'a fraction of years or months is not allowed, as their length varies; give weeks, days or hours, e.g. P15D'],
  ['P0.5M', 'a fraction of years or months is not allowed'],
  ['P0.5DT1H', 'only the last component may have a fraction'],
  ['PT1.5H30M', 'only the last component may have a fraction'],
  ['PT1.S', 'the decimal point must be followed by digits'],
  ['PT0.1234567891S', 'at most 9 fractional digits are kept, found 10'],
  ['P1234567890123456Y', 'the Y component has more than 15 digits'],
  ['PYD', 'expected a number at character 2 but found "Y"'],
  ['P0001-02-03', 'unexpected "-" at character 6'],
];

for (const [text, reason] of rejected) {
  parsing(`rejects ${JSON.stringify(text)}: ${reason}`, () => {
    const message = errorOf(() => parseDuration(text));
    assert.ok(message.startsWith(`not an ISO 8601 duration (expected PnYnMnWnDTnHnMnS, e.g. P1DT12H or PT0.5S): got ${JSON.stringify(text)}: `), message);
    assert.ok(message.includes(reason), `${message}\n  should say: ${reason}`);
  });
}

parsing('formatDuration(parseDuration(formatDuration(d))) is stable and parse gives d back', () => {
  fc.assert(
    fc.property(durationArbitrary, (duration) => {
      const text = formatDuration(duration);
      assert.equal(parseDuration(text), duration);
    }),
    { numRuns: 3_000 },
  );
  assert.is(formatDuration(ZERO), 'PT0S');
  assert.is(formatDuration(parseDuration('P1Y2M10DT2H30M')), 'P1Y2M10DT2H30M');
});

parsing.run();

const adding = suite('addDuration');

const sums: Array<[start: string, duration: string, sign: 1 | -1, result: string]> = [
  ['2024-01-01T00:00:00Z', 'P1Y2M10DT2H30M', 1, '2025-03-11T02:30:00Z'],
  ['2024-05-01T00:00:00Z', 'P1W', 1, '2024-05-08T00:00:00Z'],
  ['2024-05-01T23:00:00Z', 'PT90M', 1, '2024-05-02T00:30:00Z'],
  ['2024-01-31T10:00:00Z', 'P1M', 1, '2024-02-29T10:00:00Z'],
  ['2023-01-31T10:00:00Z', 'P1M', 1, '2023-02-28T10:00:00Z'],
  ['2024-02-29T00:00:00Z', 'P1Y', 1, '2025-02-28T00:00:00Z'],
  ['2024-02-29T00:00:00Z', 'P4Y', 1, '2028-02-29T00:00:00Z'],
  ['2024-03-31T00:00:00Z', 'P1M', -1, '2024-02-29T00:00:00Z'],
  ['2024-03-31T00:00:00Z', 'P1M1D', -1, '2024-02-28T00:00:00Z'],
  ['2024-01-15T00:00:00Z', 'P13M', -1, '2022-12-15T00:00:00Z'],
  ['2024-12-31T23:59:59.5Z', 'PT0.5S', 1, '2025-01-01T00:00:00.0Z'],
  ['2024-01-01T00:00:00.25Z', 'PT0.5S', -1, '2023-12-31T23:59:59.75Z'],
  ['2024-01-01T00:00:00.120Z', 'PT1S', 1, '2024-01-01T00:00:01.120Z'],
  ['2024-01-01T00:00:00Z', 'PT0.000000001S', -1, '2023-12-31T23:59:59.999999999Z'],
  ['-000001-12-31T00:00:00Z', 'P1D', 1, '0000-01-01T00:00:00Z'],
  ['0000-03-01T00:00:00Z', 'P1D', -1, '0000-02-29T00:00:00Z'],
  ['-000044-03-15T12:00:00Z', 'P2068Y', 1, '2024-03-15T12:00:00Z'],
  ['9999-12-31T00:00:00Z', 'P1D', 1, '+010000-01-01T00:00:00Z'],
];

for (const [start, duration, sign, result] of sums) {
  adding(`${start} ${sign > 0 ? '+' : '-'} ${duration} = ${result}`, () => {
    assert.is(formatInstant(addDuration(parseInstant(start), parseDuration(duration), sign)), result);
  });
}

adding('refuses results outside the supported years', () => {
  const last = parseInstant('+999999999-12-31T00:00:00Z');
  const first = parseInstant('-999999999-01-01T00:00:00Z');
  assert.match(errorOf(() => addDuration(last, parseDuration('P1D'), 1)), /outside the supported years -999999999 to \+999999999/);
  assert.match(errorOf(() => addDuration(last, parseDuration('P1Y'), 1)), /outside the supported years/);
  assert.match(errorOf(() => addDuration(first, parseDuration('PT1S'), -1)), /outside the supported years/);
  assert.match(errorOf(() => addDuration(first, parseDuration('P999999999999999Y'), 1)), /outside the supported years/);
});

adding('exact durations (no years or months) are undone by subtracting them', () => {
  fc.assert(
    fc.property(instantArbitrary, durationArbitrary, (instant, duration) => {
      const exact = { ...duration, years: 0, months: 0 };
      const back = addDuration(addDuration(instant, exact, 1), exact, -1);
      assert.is(back.seconds, instant.seconds);
      assert.is(back.nanos, instant.nanos);
    }),
    { numRuns: 3_000 },
  );
});

adding('adding never goes back in time and subtracting never goes forward', () => {
  fc.assert(
    fc.property(instantArbitrary, durationArbitrary, (instant, duration) => {
      const later = addDuration(instant, duration, 1);
      const earlier = addDuration(instant, duration, -1);
      assert.ok(later.seconds > instant.seconds || (later.seconds === instant.seconds && later.nanos >= instant.nanos));
      assert.ok(earlier.seconds < instant.seconds || (earlier.seconds === instant.seconds && earlier.nanos <= instant.nanos));
    }),
    { numRuns: 3_000 },
  );
});

adding.run();
