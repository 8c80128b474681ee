import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readCatalogue } from '../../src/catalogue/load.ts';
import { compareInstants, formatInstant } from '../../src/time/index.ts';
import { locationWords } from '../../src/store/location-words.ts';

const events = readCatalogue();

test('ids are unique', () => {
  assert.is(new Set(events.map((e) => e.event_id)).size, events.length);
});

test('every cause is an earlier event of the catalogue, never the event itself', () => {
  const byId = new Map(events.map((e) => [e.event_id, e]));
  for (const event of events) {
    for (const cause of event.causes) {
      const found = byId.get(cause);
      assert.ok(found, `${event.event_id}: unknown cause ${cause}`);
      assert.is.not(cause, event.event_id);
      assert.ok(compareInstants(found!.time, event.time) < 0, `${event.event_id}: cause ${cause} is not earlier`);
    }
  }
});

test('times are canonical UTC instants and the file is in time order', () => {
  for (let i = 0; i < events.length; i++) {
    assert.match(formatInstant(events[i]!.time), /Z$/);
    if (i > 0) assert.ok(compareInstants(events[i - 1]!.time, events[i]!.time) <= 0, `${events[i]!.event_id} out of order`);
  }
});

test('it reaches before year 1 and into major cities', () => {
  assert.ok(events.filter((e) => e.time.seconds < -62135596800n).length >= 5, 'events before year 1');
  for (const city of ['paris', 'london', 'rome', 'athens', 'berlin']) {
    assert.ok(events.some((e) => locationWords(e.location).includes(city)), city);
  }
  assert.ok(events.filter((e) => locationWords(e.location).includes('paris')).length >= 5);
});

test.run();
