import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseCatalogue, readCatalogue } from '../../src/catalogue/load.ts';
import { locationWords } from '../../src/store/location-words.ts';
import { compareInstants, formatInstant } from '../../src/time/index.ts';

interface RawEvent {
  event_id: string;
  description: string;
  time: string;
  location: string;
  causes: string[];
}

const raw = JSON.parse(readFileSync(new URL('../../src/catalogue/historical-events.json', import.meta.url), 'utf8')) as {
  events: RawEvent[];
};
const events = readCatalogue();
const byId = new Map(events.map((event) => [event.event_id, event]));
const indexOf = new Map(events.map((event, index) => [event.event_id, index]));
const wordsOf = (location: string): string[] => locationWords(location);

// Calendar arithmetic kept independent of src/time, so a shared bug cannot hide itself.
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const floorDiv = (a: number, b: number): number => Math.floor(a / b);
function julianDayNumber(year: number, month: number, day: number, calendar: 'julian' | 'gregorian'): number {
  const a = floorDiv(14 - month, 12);
  const y = year + 4800 - a;
  const m = month + 12 * a - 3;
  const base = day + floorDiv(153 * m + 2, 5) + 365 * y + floorDiv(y, 4);
  return calendar === 'julian' ? base - 32083 : base - floorDiv(y, 100) + floorDiv(y, 400) - 32045;
}
function datePartOf(time: string): [number, number, number] {
  const match = /^([+-]?\d+)-(\d\d)-(\d\d)T/.exec(time);
  if (!match) throw new Error(`no date in ${time}`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

test('it holds between 300 and 400 events with unique readable slug ids', () => {
  assert.ok(events.length >= 300 && events.length <= 400, `count ${events.length}`);
  assert.is(events.length, raw.events.length);
  assert.is(byId.size, events.length, 'ids are unique');
  for (const event of events) assert.match(event.event_id, /^[a-z0-9]+(-[a-z0-9]+)*$/);
});

test('every time parses and is written in canonical form, and the file is in time order', () => {
  raw.events.forEach((entry, index) => {
    assert.is(formatInstant(events[index]!.time), entry.time, `${entry.event_id}: ${entry.time} is not canonical`);
    assert.match(entry.time, /Z$/);
    if (index > 0) assert.ok(compareInstants(events[index - 1]!.time, events[index]!.time) <= 0, `${entry.event_id} is out of order`);
  });
});

test('every cause is an earlier event of the file, happening earlier, never the event itself', () => {
  let links = 0;
  for (const event of events) {
    assert.ok(event.causes.length <= 3, `${event.event_id}: too many causes`);
    assert.is(new Set(event.causes).size, event.causes.length, `${event.event_id}: repeated cause`);
    for (const cause of event.causes) {
      assert.is.not(cause, event.event_id, `${event.event_id} causes itself`);
      const found = byId.get(cause);
      assert.ok(found, `${event.event_id}: unknown cause ${cause}`);
      assert.ok(indexOf.get(cause)! < indexOf.get(event.event_id)!, `${event.event_id}: cause ${cause} comes later in the file`);
      assert.ok(compareInstants(found!.time, event.time) < 0, `${event.event_id}: cause ${cause} does not happen earlier`);
      links += 1;
    }
  }
  assert.ok(links >= 200, `only ${links} causal links`);
  assert.ok(events.filter((event) => event.causes.length > 0).length >= events.length / 2, 'most events have a cause');
});

test('at least 20 events happen before year 1, and the spread reaches the 2020s', () => {
  const beforeYearOne = events.filter((event) => datePartOf(formatInstant(event.time))[0] <= 0);
  assert.ok(beforeYearOne.length >= 20, `${beforeYearOne.length} events before year 1`);
  assert.ok(events.some((event) => datePartOf(formatInstant(event.time))[0] >= 2020), 'nothing from the 2020s');
  const centuries = new Set(events.map((event) => Math.floor(datePartOf(formatInstant(event.time))[0] / 100)));
  assert.ok(centuries.size >= 20, `only ${centuries.size} centuries`);
});

test('BC years use astronomical numbering: the Ides of March 44 BC is in year -000043', () => {
  const caesar = byId.get('assassination-of-julius-caesar')!;
  assert.ok(caesar, 'the assassination of Julius Caesar is in the catalogue');
  assert.match(formatInstant(caesar.time), /^-000043-03-/);
  assert.match(caesar.description, /\(15 March 44 BC in the Julian calendar\)/);
});

test('dates given in the Julian calendar are converted to proleptic Gregorian exactly', () => {
  const note = /\((\d{1,2}) (\w+) (AD )?(\d+)( BC)? in the Julian calendar\)\.$/;
  let checked = 0;
  for (const event of events) {
    const match = note.exec(event.description);
    if (!match) continue;
    const month = MONTHS.indexOf(match[2]!) + 1;
    assert.ok(month > 0, `${event.event_id}: month ${match[2]}`);
    const year = match[5] ? 1 - Number(match[4]) : Number(match[4]);
    const [gy, gm, gd] = datePartOf(formatInstant(event.time));
    const expected = julianDayNumber(year, month, Number(match[1]), 'julian');
    assert.is(julianDayNumber(gy, gm, gd, 'gregorian'), expected, `${event.event_id}: Julian ${match[0]} vs ${formatInstant(event.time)}`);
    checked += 1;
  }
  assert.ok(checked >= 80, `only ${checked} Julian-dated events checked`);
  // Every event before the Gregorian reform says which calendar its familiar date comes from.
  for (const event of events) {
    if (compareInstants(event.time, byId.get('gregorian-calendar-takes-effect')!.time) < 0) {
      assert.match(event.description, note, `${event.event_id} lacks its Julian date`);
    }
  }
});

test('times of day are noon UTC unless the hour is known', () => {
  const exact = events.filter((event) => !formatInstant(event.time).endsWith('T12:00:00Z'));
  assert.ok(exact.length >= 10 && exact.length <= 60, `${exact.length} events with a time of day`);
  assert.is(formatInstant(byId.get('atomic-bombing-of-hiroshima')!.time), '1945-08-05T23:15:00Z');
  assert.is(formatInstant(byId.get('moon-landing')!.time), '1969-07-20T20:17:40Z');
});

test('locations read "City, Country", and the major cities have several events each', () => {
  for (const event of events) assert.match(event.location, /^[^,]+(, [^,]+)+$/, `${event.event_id}: ${event.location}`);
  const counts = new Map<string, number>();
  for (const event of events) for (const word of new Set(wordsOf(event.location))) counts.set(word, (counts.get(word) ?? 0) + 1);
  for (const city of ['paris', 'london', 'rome', 'athens', 'berlin', 'moscow', 'beijing', 'tokyo', 'vienna', 'istanbul', 'cairo', 'washington']) {
    assert.ok((counts.get(city) ?? 0) >= 5, `${city}: ${counts.get(city) ?? 0} events`);
  }
  assert.ok((counts.get('york') ?? 0) >= 5, 'New York');
});

test('accented places are kept as written and found without accents', () => {
  const krakow = events.find((event) => event.location === 'Kraków, Poland');
  assert.ok(krakow, 'an event in Kraków');
  assert.ok(wordsOf(krakow!.location).includes('krakow'));
  assert.ok(events.some((event) => /[^\u0020-\u007e]/.test(event.location) && event.location !== krakow!.location), 'other accented places');
});

test('every description is one sentence', () => {
  for (const event of events) {
    assert.match(event.description, /^[\p{Lu}0-9"].*[.!]$/u, `${event.event_id}: ${event.description}`);
    assert.not.match(event.description.replace(/\b(?:[A-Z]|St|Jr|a\.m|p\.m|D\.C|Mt|No)\.\s/g, ''), /[.!?] [A-Z]/, `${event.event_id}: more than one sentence`);
  }
});

test('a broken catalogue is refused with the field named', () => {
  const base = { event_id: 'a', description: 'A.', time: '2000-01-01T00:00:00Z', location: 'Paris, France', causes: [] as string[] };
  assert.throws(() => parseCatalogue({ events: [{ ...base, time: '2000-13-01T00:00:00Z' }] }), /events\[0\]\.time: .*month 13/);
  assert.throws(() => parseCatalogue({ events: [base, base] }), /events\[1\]\.event_id: duplicate id "a"/);
  assert.throws(() => parseCatalogue({ events: [{ ...base, causes: ['a'] }] }), /events\[0\]\.causes: "a" is not an earlier event/);
  assert.throws(
    () => parseCatalogue({ events: [base, { ...base, event_id: 'b', causes: ['a'] }] }),
    /events\[1\]\.causes: "a" does not happen before "b"/,
  );
  assert.throws(() => parseCatalogue({ events: [{ ...base, event_id: 'Not A Slug' }] }), /events\[0\]\.event_id: must be a lowercase slug/);
});

test.run();
