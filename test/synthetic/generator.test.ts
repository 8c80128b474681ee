import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  RECENT_CAUSE_WINDOW,
  generateSyntheticEvents,
  syntheticEventId,
  syntheticPlaceName,
  type SyntheticEvent,
  type SyntheticOptions,
} from '../../src/synthetic/generator.ts';
import { compareInstants, formatInstant, parseInstant } from '../../src/time/index.ts';

const take = (options: SyntheticOptions): SyntheticEvent[] => [...generateSyntheticEvents(options)];
const indexOf = (id: string): number => Number(id.slice(4));

test('the same seed gives the same events; another seed gives others', () => {
  const a = take({ events: 3000, places: 50, seed: 42 });
  const b = take({ events: 3000, places: 50, seed: 42 });
  const c = take({ events: 3000, places: 50, seed: 43 });
  assert.equal(a, b);
  assert.not.equal(
    a.map((e) => formatInstant(e.time)),
    c.map((e) => formatInstant(e.time)),
  );
});

test('ids follow the index, and events come in strictly increasing time inside [start, end)', () => {
  const start = parseInstant('1900-01-01T00:00:00Z');
  const end = parseInstant('2025-01-01T00:00:00Z');
  const events = take({ events: 20_000, places: 10 });
  events.forEach((event, index) => {
    assert.is(event.event_id, syntheticEventId(index));
    assert.ok(compareInstants(event.time, start) >= 0 && compareInstants(event.time, end) < 0, formatInstant(event.time));
    if (index > 0) assert.is(compareInstants(events[index - 1]!.time, event.time), -1, `${event.event_id} is not after its predecessor`);
  });
  assert.is(syntheticEventId(123), 'syn-000000123');
  assert.is(formatInstant(events[0]!.time).length, '1900-01-01T00:00:00Z'.length, 'whole seconds when slots are wide');
});

test('every cause exists, comes earlier in time, and is neither repeated nor the event itself', () => {
  const events = take({ events: 20_000, places: 100, seed: 5 });
  const timeOf = new Map(events.map((event) => [event.event_id, event.time]));
  for (const event of events) {
    assert.is(new Set(event.causes).size, event.causes.length, `${event.event_id} repeats a cause`);
    for (const cause of event.causes) {
      assert.is.not(cause, event.event_id);
      const causeTime = timeOf.get(cause);
      assert.ok(causeTime, `${event.event_id}: unknown cause ${cause}`);
      assert.is(compareInstants(causeTime!, event.time), -1, `${event.event_id}: cause ${cause} is not earlier`);
    }
  }
});

test('the mean number of causes is half of maxCauses, and most causes are recent', () => {
  for (const maxCauses of [0, 2, 4, 6]) {
    const events = take({ events: 30_000, places: 10, seed: 9, maxCauses });
    const links = events.reduce((sum, event) => sum + event.causes.length, 0);
    const mean = links / events.length;
    assert.ok(Math.abs(mean - maxCauses / 2) < 0.05, `maxCauses ${maxCauses}: mean ${mean}`);
    assert.ok(events.every((event) => event.causes.length <= maxCauses));
    if (maxCauses === 4) {
      const recent = events.flatMap((event) => event.causes.map((cause) => indexOf(event.event_id) - indexOf(cause)));
      const share = recent.filter((distance) => distance <= RECENT_CAUSE_WINDOW).length / recent.length;
      assert.ok(share >= 0.85, `only ${share} of causes are recent`);
      assert.ok(recent.some((distance) => distance > RECENT_CAUSE_WINDOW), 'some causes reach further back');
    }
  }
});

test('locations are exactly the requested number of named places', () => {
  const events = take({ events: 20_000, places: 100, seed: 3 });
  const names = new Set(events.map((event) => event.location));
  assert.is(names.size, 100);
  const expected = new Set(Array.from({ length: 100 }, (_, index) => syntheticPlaceName(index)));
  for (const name of names) assert.ok(expected.has(name), name);
  assert.is(syntheticPlaceName(123), 'Place 123, Region 12');
  assert.ok(take({ events: 1000, places: 1 }).every((event) => event.location === 'Place 0, Region 0'));
});

test('slots narrower than a second use nanoseconds and still strictly increase', () => {
  const start = parseInstant('-000043-03-15T12:00:00Z');
  const end = parseInstant('-000043-03-15T12:00:01Z');
  const events = take({ events: 5000, places: 3, start, end });
  assert.match(formatInstant(events[0]!.time), /^-000043-03-15T12:00:00\.\d{9}Z$/);
  for (let i = 1; i < events.length; i++) assert.is(compareInstants(events[i - 1]!.time, events[i]!.time), -1);
  assert.is(compareInstants(events.at(-1)!.time, end), -1);
});

test('bad options are refused before the first event, naming the option', () => {
  assert.throws(() => generateSyntheticEvents({ events: -1, places: 1 }), /events must be a whole number ≥ 0, got -1/);
  assert.throws(() => generateSyntheticEvents({ events: 10, places: 0 }), /places must be a whole number ≥ 1/);
  assert.throws(() => generateSyntheticEvents({ events: 10, places: 1, maxCauses: 1.5 }), /maxCauses must be a whole number/);
  const at = parseInstant('2000-01-01T00:00:00Z');
  assert.throws(() => generateSyntheticEvents({ events: 10, places: 1, start: at, end: at }), /end must be after start/);
  const tiny = parseInstant('2000-01-01T00:00:00.000000005Z');
  assert.throws(() => generateSyntheticEvents({ events: 10, places: 1, start: at, end: tiny }), /10 distinct instants do not fit/);
  assert.equal(take({ events: 0, places: 1 }), []);
});

test('generating 10^5 events streams: the heap does not grow with the count', () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const iterator = generateSyntheticEvents({ events: 200_000, places: 1000, seed: 11 });
  let links = 0;
  for (let i = 0; i < 1000; i++) links += iterator.next().value!.causes.length;
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 100_000; i++) links += iterator.next().value!.causes.length;
  gc();
  const growth = process.memoryUsage().heapUsed - before;
  assert.ok(links > 150_000, `${links} links`);
  // The generator is still alive here: anything it kept per event (10^5 × ~200 bytes) would show.
  assert.ok(growth < 4 * 1024 * 1024, `heap grew by ${(growth / 1024 / 1024).toFixed(1)} MiB`);
});

test.run();
