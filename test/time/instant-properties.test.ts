import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compareInstants, formatInstant, instantFromDate, parseInstant } from '../../src/time/index.ts';
import { canonicalTimestampArbitrary, instantArbitrary } from './arbitraries.ts';

const RUNS = { numRuns: 5_000 };

test('formatInstant(parseInstant(s)) is s for every canonical timestamp', () => {
  fc.assert(
    fc.property(canonicalTimestampArbitrary, (text) => {
      assert.is(formatInstant(parseInstant(text)), text);
    }),
    RUNS,
  );
});

test('parseInstant(formatInstant(i)) is i for instants across ±10^13 s at any precision', () => {
  fc.assert(
    fc.property(instantArbitrary, (instant) => {
      assert.equal(parseInstant(formatInstant(instant)), instant);
    }),
    RUNS,
  );
});

test('formatting agrees with Date.toISOString over the whole range of Date', () => {
  fc.assert(
    fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (milliseconds) => {
      const date = new Date(milliseconds);
      assert.is(formatInstant(instantFromDate(date)), date.toISOString());
    }),
    RUNS,
  );
});

test('an offset moves the instant by exactly that many minutes', () => {
  fc.assert(
    fc.property(
      canonicalTimestampArbitrary.filter((text) => text.startsWith('1') || text.startsWith('2')),
      fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
      (text, offsetMinutes) => {
        const magnitude = Math.abs(offsetMinutes);
        const offset = `${offsetMinutes < 0 ? '-' : '+'}${`${Math.floor(magnitude / 60)}`.padStart(2, '0')}:${`${magnitude % 60}`.padStart(2, '0')}`;
        const utc = parseInstant(text);
        const shifted = parseInstant(`${text.slice(0, -1)}${offset}`);
        assert.is(utc.seconds - shifted.seconds, BigInt(offsetMinutes * 60));
        assert.is(shifted.nanos, utc.nanos);
      },
    ),
    RUNS,
  );
});

test('compareInstants agrees with the order of the formatted text for four-digit years', () => {
  const modernInstant = instantArbitrary.filter((instant) => instant.seconds >= -62_167_219_200n && instant.seconds < 253_402_300_800n);
  fc.assert(
    fc.property(modernInstant, modernInstant, (a, b) => {
      // With nine digits everywhere, canonical text of four-digit years sorts as time does.
      const textA = formatInstant({ ...a, fractionDigits: 9 });
      const textB = formatInstant({ ...b, fractionDigits: 9 });
      assert.is(compareInstants(a, b), textA < textB ? -1 : textA > textB ? 1 : 0);
    }),
    RUNS,
  );
});

test.run();
