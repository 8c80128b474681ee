import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  addDuration,
  compareInstants,
  containsInstant,
  formatDuration,
  formatInstant,
  formatInterval,
  parseInstant,
  parseInterval,
  TimeFormatError,
} from '../../src/time/index.ts';
import { durationArbitrary, instantArbitrary } from './arbitraries.ts';

function errorOf(text: string): string {
  try {
    parseInterval(text);
  } catch (error) {
    assert.instance(error, TimeFormatError);
    return (error as Error).message;
  }
  assert.unreachable(`expected ${JSON.stringify(text)} to be rejected`);
  return '';
}

const forms = suite('parseInterval forms');

const accepted: Array<[text: string, formatted: string]> = [
  ['2024-01-01T00:00:00Z/2024-12-31T23:59:59Z', '2024-01-01T00:00:00Z/2024-12-31T23:59:59Z'],
  ['2024-01-01T01:00:00+01:00/2024-01-01T00:00:00.5Z', '2024-01-01T00:00:00Z/2024-01-01T00:00:00.5Z'],
  ['2024-05-01T12:00:00Z/2024-05-01T12:00:00Z', '2024-05-01T12:00:00Z/2024-05-01T12:00:00Z'],
  ['2024-01-31T00:00:00Z/P1M', '2024-01-31T00:00:00Z/2024-02-29T00:00:00Z'],
  ['2024-05-01T00:00:00Z/P1DT12H', '2024-05-01T00:00:00Z/2024-05-02T12:00:00Z'],
  ['P1D/2024-03-01T00:00:00Z', '2024-02-29T00:00:00Z/2024-03-01T00:00:00Z'],
  ['PT0.5S/2024-01-01T00:00:00Z', '2023-12-31T23:59:59.5Z/2024-01-01T00:00:00Z'],
  ['-000044-03-01T00:00:00Z/-000044-03-31T23:59:59Z', '-000044-03-01T00:00:00Z/-000044-03-31T23:59:59Z'],
  ['-000044-03-15T00:00:00Z/P1D', '-000044-03-15T00:00:00Z/-000044-03-16T00:00:00Z'],
  ['1793-01-20T12:00:00Z/P0.5D', '1793-01-20T12:00:00Z/1793-01-21T00:00:00Z'],
  ['P1.5W/2024-01-11T12:00:00Z', '2024-01-01T00:00:00Z/2024-01-11T12:00:00Z'],
];

for (const [text, formatted] of accepted) {
  forms(text, () => {
    assert.is(formatInterval(parseInterval(text)), formatted);
  });
}

forms.run();

const errors = suite('parseInterval errors name the part');

const rejected: Array<[text: string, message: string | RegExp]> = [
  ['2024-01-01T00:00:00Z', /^not an ISO 8601 interval \(expected <start>\/<end>, <start>\/<duration> or <duration>\/<end>\): got "2024-01-01T00:00:00Z": no "\/" between start and end$/],
  ['2024-01-01T00:00:00Z/2024-01-02T00:00:00Z/2024-01-03T00:00:00Z', /more than one "\/"$/],
  ['/2024-01-01T00:00:00Z', 'start: missing (nothing before "/")'],
  ['2024-01-01T00:00:00Z/', 'end: missing (nothing after "/")'],
  ['P1D/P2D', 'end: a duration cannot follow a duration; one side must be a timestamp'],
  ['2024-01-02T00:00:00Z/2024-01-01T00:00:00Z', 'end 2024-01-01T00:00:00Z is before start 2024-01-02T00:00:00Z'],
  ['2024-01-01T00:00:00.000000001Z/2024-01-01T00:00:00Z', 'end 2024-01-01T00:00:00Z is before start 2024-01-01T00:00:00.000000001Z'],
  ['2024-13-01T00:00:00Z/2024-12-01T00:00:00Z', /^start: not an ISO 8601 timestamp .*: got "2024-13-01T00:00:00Z": month 13 is out of range 01-12$/],
  ['2024-01-01T00:00:00Z/2024-05-01', /^end: not an ISO 8601 timestamp .*: got "2024-05-01": a date alone is not an instant/],
  ['2024-01-01T00:00:00Z/P1X', /^end: not an ISO 8601 duration .*: got "P1X": unexpected "X"/],
  ['P1Q/2024-01-01T00:00:00Z', /^start: not an ISO 8601 duration .*: got "P1Q"/],
  ['2024-01-01T00:00:00Z/-P1D', /^end: not an ISO 8601 duration .*a duration cannot carry a sign$/],
  ['+999999999-12-31T00:00:00Z/P1D', /^end: the result is outside the supported years/],
  ['P1D/-999999999-01-01T00:00:00Z', /^start: the result is outside the supported years/],
];

for (const [text, message] of rejected) {
  errors(JSON.stringify(text), () => {
    const actual = errorOf(text);
    if (typeof message === 'string') assert.is(actual, message);
    else assert.match(actual, message);
  });
}

errors.run();

const properties = suite('parseInterval agrees with addDuration; containment');

properties('<start>/<duration> ends at addDuration(start, d, +1); <duration>/<end> starts at addDuration(end, d, -1)', () => {
  fc.assert(
    fc.property(instantArbitrary, durationArbitrary, (instant, duration) => {
      const instantText = formatInstant(instant);
      const durationText = formatDuration(duration);
      const forward = parseInterval(`${instantText}/${durationText}`);
      assert.equal(forward.start, instant);
      assert.equal(forward.end, addDuration(instant, duration, 1));
      const backward = parseInterval(`${durationText}/${instantText}`);
      assert.equal(backward.end, instant);
      assert.equal(backward.start, addDuration(instant, duration, -1));
    }),
    { numRuns: 3_000 },
  );
});

properties('<start>/<end> round-trips through formatInterval', () => {
  fc.assert(
    fc.property(instantArbitrary, instantArbitrary, (a, b) => {
      const [start, end] = compareInstants(a, b) <= 0 ? [a, b] : [b, a];
      const interval = parseInterval(`${formatInstant(start)}/${formatInstant(end)}`);
      assert.equal(interval, { start, end });
      assert.equal(parseInterval(formatInterval(interval)), interval);
    }),
    { numRuns: 3_000 },
  );
});

properties('containsInstant includes both ends and nothing outside', () => {
  const interval = parseInterval('2024-01-01T00:00:00Z/2024-01-31T23:59:59.999999999Z');
  const inside = ['2024-01-01T00:00:00Z', '2024-01-15T12:00:00+05:00', '2024-01-31T23:59:59.999999999Z'];
  const outside = ['2023-12-31T23:59:59.999999999Z', '2024-02-01T00:00:00Z', '2024-01-31T23:59:59-00:01', '-002024-01-15T00:00:00Z'];
  for (const text of inside) assert.ok(containsInstant(interval, parseInstant(text)), text);
  for (const text of outside) assert.not.ok(containsInstant(interval, parseInstant(text)), text);
});

properties.run();
