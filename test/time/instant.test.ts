import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  compareInstants,
  formatInstant,
  instantFromDate,
  instantToEpochSeconds,
  nowInstant,
  parseInstant,
  TimeFormatError,
} from '../../src/time/index.ts';

const PREFIX = 'not an ISO 8601 timestamp (expected YYYY-MM-DDTHH:MM:SS[.fffffffff]Z or an offset): got ';

function parseError(text: string): string {
  try {
    parseInstant(text);
  } catch (error) {
    assert.instance(error, TimeFormatError);
    return (error as Error).message;
  }
  assert.unreachable(`expected ${JSON.stringify(text)} to be rejected`);
  return '';
}

const valid = suite('parseInstant accepts and normalises');

const normalised: Array<[input: string, output: string, seconds: bigint, nanos: number]> = [
  ['1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z', 0n, 0],
  ['2024-05-01T12:30:40.120Z', '2024-05-01T12:30:40.120Z', 1_714_566_640n, 120_000_000],
  ['2024-05-01T12:30:40Z', '2024-05-01T12:30:40Z', 1_714_566_640n, 0],
  ['2025-01-01T00:00:00.123456789Z', '2025-01-01T00:00:00.123456789Z', 1_735_689_600n, 123_456_789],
  ['2025-01-01T00:00:00.000000000Z', '2025-01-01T00:00:00.000000000Z', 1_735_689_600n, 0],
  ['2024-05-01T13:30:40+01:00', '2024-05-01T12:30:40Z', 1_714_566_640n, 0],
  ['2024-05-01T07:00:40.5-05:30', '2024-05-01T12:30:40.5Z', 1_714_566_640n, 500_000_000],
  ['2024-05-01T12:30:40-00:00', '2024-05-01T12:30:40Z', 1_714_566_640n, 0],
  ['2024-01-01T00:30:00+01:00', '2023-12-31T23:30:00Z', 1_704_065_400n, 0],
  ['2023-12-31T23:59:00-23:59', '2024-01-01T23:58:00Z', 1_704_153_480n, 0],
  ['2024-05-01t12:30:40z', '2024-05-01T12:30:40Z', 1_714_566_640n, 0],
  ['2024-05-01 12:30:40Z', '2024-05-01T12:30:40Z', 1_714_566_640n, 0],
  ['2024-05-01T12:30:40,25Z', '2024-05-01T12:30:40.25Z', 1_714_566_640n, 250_000_000],
  ['1969-12-31T23:59:59.999999999Z', '1969-12-31T23:59:59.999999999Z', -1n, 999_999_999],
  ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00Z', -62_135_596_800n, 0],
  ['9999-12-31T23:59:59Z', '9999-12-31T23:59:59Z', 253_402_300_799n, 0],
  ['+2024-05-01T12:30:40Z', '2024-05-01T12:30:40Z', 1_714_566_640n, 0],
  ['+000000-01-01T00:00:00Z', '0000-01-01T00:00:00Z', -62_167_219_200n, 0],
  ['-000044-03-15T12:00:00Z', '-000044-03-15T12:00:00Z', -63_549_316_800n, 0],
  ['-0044-03-15T12:00:00Z', '-000044-03-15T12:00:00Z', -63_549_316_800n, 0],
  ['+012000-01-01T00:00:00Z', '+012000-01-01T00:00:00Z', 316_516_204_800n, 0],
  ['+10000-01-01T00:00:00Z', '+010000-01-01T00:00:00Z', 253_402_300_800n, 0],
  ['+1234567-06-30T00:00:00Z', '+1234567-06-30T00:00:00Z', 38_897_019_936_000n, 0],
  ['+999999999-12-31T23:59:59.999999999Z', '+999999999-12-31T23:59:59.999999999Z', 31_556_889_832_780_799n, 999_999_999],
  ['-999999999-01-01T00:00:00Z', '-999999999-01-01T00:00:00Z', -31_557_014_135_596_800n, 0],
];

for (const [input, output, seconds, nanos] of normalised) {
  valid(`${input} → ${output}`, () => {
    const instant = parseInstant(input);
    assert.is(instant.seconds, seconds);
    assert.is(instant.nanos, nanos);
    assert.is(formatInstant(instant), output);
  });
}

valid('precision is kept exactly as sent, trailing zeros included', () => {
  for (let digits = 0; digits <= 9; digits += 1) {
    const fraction = digits === 0 ? '' : `.${'1200000000'.slice(0, digits)}`;
    const text = `2024-05-01T12:30:40${fraction}Z`;
    const instant = parseInstant(text);
    assert.is(instant.fractionDigits, digits, text);
    assert.is(formatInstant(instant), text);
  }
});

valid('years agree with JavaScript Date where Date reaches (cross-check of the calendar)', () => {
  for (const text of ['-271821-04-20T00:00:00.000Z', '-000001-12-31T23:59:59.999Z', '0000-02-29T12:00:00.000Z', '1600-02-29T00:00:00.000Z', '+275760-09-13T00:00:00.000Z']) {
    const instant = parseInstant(text);
    assert.is(Number(instant.seconds) * 1000 + instant.nanos / 1e6, Date.parse(text), text);
    assert.is(new Date(Date.parse(text)).toISOString(), formatInstant(instant));
  }
});

valid.run();

const leap = suite('leap years in the proleptic Gregorian calendar');

for (const year of ['2000', '2024', '1600', '0000', '-0004', '-0400', '+004000']) {
  leap(`${year} has 29 February`, () => {
    assert.ok(parseInstant(`${year}-02-29T00:00:00Z`));
  });
}
for (const year of ['1900', '2023', '2100', '0001', '-0100', '-0001', '+010100']) {
  leap(`${year} has no 29 February`, () => {
    const message = parseError(`${year}-02-29T00:00:00Z`);
    assert.match(message, /day 29 is out of range 01-28 for this month \(-?\d+ is not a leap year\)/);
  });
}

leap.run();

const invalid = suite('parseInstant rejects with a message that says why');

const rejected: Array<[input: string, reason: string]> = [
  ['', 'the text is empty'],
  ['2024-13-01T00:00:00Z', 'month 13 is out of range 01-12'],
  ['2024-00-01T00:00:00Z', 'month 00 is out of range 01-12'],
  ['2024-04-31T00:00:00Z', 'day 31 is out of range 01-30 for this month'],
  ['2024-01-00T00:00:00Z', 'day 00 is out of range 01-31 for this month'],
  ['2024-05-01T24:00:00Z', 'hour 24 is out of range 00-23'],
  ['2024-05-01T12:60:00Z', 'minute 60 is out of range 00-59'],
  ['2024-05-01T12:00:61Z', 'second 61 is out of range 00-59'],
  ['2016-12-31T23:59:60Z', 'second 60 (a leap second) is not supported; use 59 or the next minute'],
  ['2024-05-01', 'a date alone is not an instant; add a time and an offset, e.g. T00:00:00Z'],
  ['2024-05-01T12:00Z', 'seconds are required (HH:MM:SS)'],
  ['2024-05-01T12:00:00', 'a UTC offset is required (Z or ±HH:MM)'],
  ['2024-05-01T12:00:00+24:00', 'offset hour 24 is out of range 00-23'],
  ['2024-05-01T12:00:00+01:60', 'offset minute 60 is out of range 00-59'],
  ['2024-05-01T12:00:00+0100', 'expected ":" in the offset (±HH:MM) but found "0" at character 23'],
  ['2024-05-01T12:00:00+01', 'expected ":" in the offset (±HH:MM) but found the end of the text'],
  ['2024-05-01T12:00:00 UTC', 'expected a fraction, "Z" or an offset ±HH:MM but found " " at character 20'],
  ['2024-05-01T12:00:00Zjunk', 'unexpected text after the offset: "j" at character 21'],
  ['2024-05-01T12:00:00.Z', 'the decimal point must be followed by digits'],
  ['2024-05-01T12:00:00.1234567891Z', 'at most 9 fractional digits (nanoseconds) are kept, found 10'],
  ['12024-01-01T00:00:00Z', 'a year of more than 4 digits needs a sign (ISO 8601 expanded form, e.g. +012024)'],
  ['+1234567890-01-01T00:00:00Z', 'a signed (expanded) year needs 4 to 9 digits, found 10'],
  ['-044-01-01T00:00:00Z', 'a signed (expanded) year needs 4 to 9 digits, found 3'],
  ['24-05-01T00:00:00Z', 'expected a 4-digit year but found "-" at character 3'],
  ['2024-5-01T00:00:00Z', 'expected a 2-digit month but found "5" at character 6'],
  ['2024/05/01T00:00:00Z', 'expected "-" after the year but found "/" at character 5'],
  ['2024-05-01X12:00:00Z', 'expected "T" between the date and the time but found "X" at character 11'],
  ['2024-05-01T1:00:00Z', 'expected a 2-digit hour but found "1" at character 12'],
  ['now', 'expected a 4-digit year but found "n" at character 1'],
  ['1714566640', 'a year of more than 4 digits needs a sign'],
  ['20250101T000000Z', 'the ISO 8601 basic form (no "-" or ":") is not accepted; use the extended form, e.g. 2025-01-01T00:00:00Z'],
  ['-999999999-01-01T00:00:00+01:00', 'in UTC it falls outside the supported years -999999999 to +999999999'],
  ['+999999999-12-31T23:59:59-00:01', 'in UTC it falls outside the supported years -999999999 to +999999999'],
  ['2025-01-01T00:00:00 02:00', 'a space where the offset\'s sign should be (in a query string, a "+" sent unencoded arrives as a space: send it as %2B)'],
];

for (const [input, reason] of rejected) {
  invalid(`${JSON.stringify(input)}: ${reason}`, () => {
    const message = parseError(input);
    assert.ok(message.startsWith(`${PREFIX}${JSON.stringify(input)}: `), message);
    assert.ok(message.includes(reason), `${message}\n  should say: ${reason}`);
  });
}

invalid('the documented example message, word for word', () => {
  assert.is(
    parseError('2024-13-01T00:00:00Z'),
    'not an ISO 8601 timestamp (expected YYYY-MM-DDTHH:MM:SS[.fffffffff]Z or an offset): got "2024-13-01T00:00:00Z": month 13 is out of range 01-12',
  );
});

invalid('a huge input is quoted only in part', () => {
  const message = parseError(`2024-05-01T00:00:00Z${'x'.repeat(10_000)}`);
  assert.ok(message.length < 400, `${message.length} characters`);
  assert.ok(message.includes('…'));
});

invalid('a value that is not a string is refused cleanly', () => {
  assert.throws(() => parseInstant(1_714_566_640 as unknown as string), (error: unknown) => error instanceof TimeFormatError && /not a string/.test((error as Error).message));
});

invalid.run();

const helpers = suite('compare, Date and epoch helpers');

helpers('compareInstants orders by time and ignores precision', () => {
  const a = parseInstant('2024-05-01T12:30:40.1Z');
  const b = parseInstant('2024-05-01T12:30:40.100000000Z');
  const c = parseInstant('2024-05-01T12:30:40.100000001Z');
  const d = parseInstant('-000044-03-15T12:00:00Z');
  assert.is(compareInstants(a, b), 0);
  assert.is(compareInstants(a, c), -1);
  assert.is(compareInstants(c, a), 1);
  assert.is(compareInstants(d, a), -1);
});

helpers('instantFromDate keeps milliseconds with 3 digits, before and after the epoch', () => {
  assert.is(formatInstant(instantFromDate(new Date('2024-05-01T12:30:40.120Z'))), '2024-05-01T12:30:40.120Z');
  assert.is(formatInstant(instantFromDate(new Date('1969-12-31T23:59:59.001Z'))), '1969-12-31T23:59:59.001Z');
  const instant = instantFromDate(new Date(-1));
  assert.equal(instant, { seconds: -1n, nanos: 999_000_000, fractionDigits: 3 });
  assert.throws(() => instantFromDate(new Date(Number.NaN)), (error: unknown) => error instanceof TimeFormatError);
});

helpers('nowInstant is the current time with millisecond precision', () => {
  const before = Date.now();
  const now = nowInstant();
  const after = Date.now();
  const milliseconds = Number(now.seconds) * 1000 + now.nanos / 1e6;
  assert.ok(milliseconds >= before && milliseconds <= after);
  assert.is(now.fractionDigits, 3);
});

helpers('instantToEpochSeconds is a float of seconds', () => {
  assert.is(instantToEpochSeconds(parseInstant('1970-01-01T00:00:01.5Z')), 1.5);
  assert.is(instantToEpochSeconds(parseInstant('1969-12-31T23:59:59.5Z')), -0.5);
  assert.is(instantToEpochSeconds(parseInstant('-000044-03-15T12:00:00Z')), -63_549_316_800);
});

helpers.run();
