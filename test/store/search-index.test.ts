/**
 * The in-memory search indexes against the store's own: random genesis data (unsorted times, ties, ids outside
 * ASCII), random manipulations and reverts on a primary and its branches, then random searches walked page by
 * page. A store searching genesis in memory and one reading the stored index must answer every page alike.
 */
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sortedIndexes } from '../../src/analysis/sort-in-steps.ts';
import { runToEnd } from '../../src/analysis/time-slices.ts';
import type { GenesisEvent, SearchPage, TimelineStore } from '../../src/store/index.ts';
import { compareUtf8 } from '../../src/store/utf8-order.ts';
import { buildGenesisIndex, placesWithAll, searchPositions, type GenesisIndex } from '../../src/store/genesis-index.ts';
import type { Instant } from '../../src/time/index.ts';
import { testBackends } from '../support/backends.ts';

const PLACES = ['Oslo, Norway', 'Bergen, Norway', 'Rome, Italy', 'Lyon, France', 'Nice, France', 'Turin, Italy'];
const WORDS = ['norway', 'italy', 'france', 'oslo', 'rome', 'nice'];
const ID_CHARACTERS = ['a', 'b', 'Z', '0', 'é', '\ue000', '😀', '-'];

/** Every time of a run is this many seconds from the epoch, give or take a few: near the epoch, or where a double holds every fourth second. */
let era = 0n;
const ERAS = [
  { name: 'near the epoch', seconds: 0n, runs: 1 },
  { name: 'in year 900 000 000', seconds: 28_401_194_632_780_800n, runs: 0.5 },
];
const instant = (seconds: number, nanos: number): Instant => ({ seconds: era + BigInt(seconds), nanos, fractionDigits: 9 });

const genesisArbitrary = fc
  .uniqueArray(fc.array(fc.constantFrom(...ID_CHARACTERS), { minLength: 1, maxLength: 4 }).map((chars) => `g${chars.join('')}`), {
    minLength: 1,
    maxLength: 60,
  })
  .chain((ids) =>
    fc.tuple(
      ...ids.map((id) =>
        fc.record({ seconds: fc.integer({ min: -3, max: 3 }), nanos: fc.constantFrom(0, 1, 500_000_000), place: fc.nat({ max: PLACES.length - 1 }) }).map(
          ({ seconds, nanos, place }): GenesisEvent => ({ event_id: id, description: `genesis ${id}`, time: instant(seconds, nanos), location: PLACES[place]!, causes: [] }),
        ),
      ),
    ),
  );

/**
 * Genesis events loaded again with another time and place, and events new to genesis (some loaded twice): in a load
 * of their own, or later in the same load; small batches put an event and its reload in the same batch or apart.
 */
const reloadArbitrary = fc.record({
  events: fc.array(fc.record({ event: fc.nat(), added: fc.boolean(), seconds: fc.integer({ min: -3, max: 3 }), place: fc.nat({ max: PLACES.length - 1 }) }), {
    maxLength: 8,
  }),
  sameLoad: fc.boolean(),
  batchSize: fc.integer({ min: 1, max: 8 }),
});

function reloaded(genesis: GenesisEvent[], reload: { events: { event: number; added: boolean; seconds: number; place: number }[] }): GenesisEvent[] {
  return reload.events.map(({ event, added, seconds, place }) => {
    const eventId = added ? `n${event % 3}` : genesis[event % genesis.length]!.event_id;
    return { event_id: eventId, description: `reloaded ${eventId} ${seconds}`, time: instant(seconds, 1), location: PLACES[place]!, causes: [] };
  });
}

type Step =
  | { kind: 'manipulate'; timeline: number; event: number; action: string; seconds: number }
  | { kind: 'revert'; timeline: number; event: number }
  | { kind: 'branch'; timeline: number; event: number; alternate: boolean };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('manipulate' as const),
    timeline: fc.nat(),
    event: fc.nat(),
    action: fc.constantFrom('reschedule', 'cancel', 'witness'),
    seconds: fc.integer({ min: -3, max: 3 }),
  }),
  fc.record({ kind: fc.constant('revert' as const), timeline: fc.nat(), event: fc.nat() }),
  fc.record({ kind: fc.constant('branch' as const), timeline: fc.nat(), event: fc.nat(), alternate: fc.boolean() }),
);

const queryArbitrary = fc.record({
  words: fc.subarray(WORDS, { maxLength: 2 }),
  start: fc.option(fc.tuple(fc.integer({ min: -4, max: 4 }), fc.constantFrom(0, 1)), { nil: undefined }),
  end: fc.option(fc.tuple(fc.integer({ min: -4, max: 4 }), fc.constantFrom(0, 500_000_000)), { nil: undefined }),
  pageSize: fc.integer({ min: 1, max: 7 }),
});

interface RandomQuery {
  words: string[];
  start?: [number, number];
  end?: [number, number];
  pageSize: number;
}

const toSearch = (query: RandomQuery) => ({
  words: query.words.length ? [query.words.join(' ')] : [],
  start: query.start && instant(...query.start),
  end: query.end && instant(...query.end),
  pageSize: query.pageSize,
});

const summary = (page: SearchPage) => page.events.map((event) => `${event.event_id}|${event.timeline_id}|${event.description}|${event.time}`);

/** Walks every page of a search in both stores (memory index first), asserting each page alike; returns the page count. */
async function walk(stores: TimelineStore[], timelineId: string, query: RandomQuery): Promise<number> {
  let cursor: string | undefined;
  let pages = 0;
  const seen = new Set<string>();
  do {
    const [memory, stored] = await Promise.all(stores.map((store) => store.search(timelineId, { ...toSearch(query), cursor })));
    const where = `page ${pages + 1} of ${JSON.stringify({ timelineId, ...query, cursor }, (_, value) => (typeof value === 'bigint' ? String(value) : value))}`;
    assert.equal(summary(memory!), summary(stored!), where);
    assert.is(memory!.nextCursor, stored!.nextCursor, 'the same cursor');
    for (const event of memory!.events) {
      assert.not.ok(seen.has(event.event_id), `${event.event_id} found once in a search, ${where}`);
      seen.add(event.event_id);
    }
    cursor = memory!.nextCursor;
    pages += 1;
  } while (cursor);
  return pages;
}

for (const backend of testBackends) for (const { name: eraName, seconds: eraSeconds, runs } of ERAS) {
  test(`on ${backend.name}, times ${eraName}, searches through the in-memory indexes answer as the stored index does`, async () => {
    era = eraSeconds;
    let scenario = 0;
    await fc.assert(
      fc.asyncProperty(genesisArbitrary, reloadArbitrary, fc.array(stepArbitrary, { maxLength: 25 }), fc.array(queryArbitrary, { minLength: 1, maxLength: 6 }), async (genesis, reload, steps, queries) => {
        scenario += 1;
        const places = [await backend.newPlace(), await backend.newPlace()];
        const storages = [
          await places[0]!.open({ timelineOptions: { searchCacheBytes: 0 } }),
          await places[1]!.open({ timelineOptions: { searchCacheBytes: 0, genesisIndexes: false } }),
        ];
        const stores = storages.map((storage) => storage.timelines);
        try {
          const again = reloaded(genesis, reload);
          for (const store of stores) {
            const options = { batchSize: reload.batchSize };
            if (reload.sameLoad) await store.bulkLoad('primary', [...genesis, ...again], options);
            else for (const events of [genesis, again]) if (events.length > 0) await store.bulkLoad('primary', events, options);
          }
          const loadedIds = new Set([...genesis, ...again].map((event) => event.event_id));
          assert.is((await stores[0]!.getTimeline('primary'))!.event_count, loadedIds.size, 'an event loaded again is counted once');
          const timelines = ['primary'];
          const eventIds = [...loadedIds];
          let made = 0;
          for (const step of steps) {
            const timelineId = timelines[step.timeline % timelines.length]!;
            const eventId = eventIds[step.event % eventIds.length]!;
            const outcomes = await Promise.all(
              stores.map(async (store) => {
                try {
                  if (step.kind === 'branch') {
                    const spec = { kind: step.alternate ? 'alternate' : 'parallel', base_timeline_id: timelineId, description: '', variation: 'v', owner: 'u' } as const;
                    await store.createTimeline({ ...spec, timeline_id: `tl${scenario}-${made}` });
                  } else if (step.kind === 'manipulate') {
                    const changes = [{ action: step.action, time: instant(step.seconds, 250_000_000) }];
                    await store.manipulate(timelineId, eventId, { description: `${step.action} ${step.seconds}`, changes, new_event_id: `m${made}` }, 'u');
                  } else {
                    await store.revert(timelineId, eventId, 'u');
                  }
                  return 'ok';
                } catch (error) {
                  return (error as { code?: string }).code ?? String(error);
                }
              }),
            );
            assert.is(outcomes[0], outcomes[1], `${JSON.stringify(step)} ends alike in both stores`);
            if (outcomes[0] === 'ok' && step.kind === 'branch') timelines.push(`tl${scenario}-${made}`);
            if (outcomes[0] === 'ok' && step.kind === 'manipulate') eventIds.push(`m${made}`);
            made += 1;
          }
          for (const timelineId of timelines) {
            for (const query of queries) assert.ok((await walk(stores, timelineId, query)) >= 1);
          }
        } finally {
          for (const storage of storages) await storage.close();
          for (const place of places) await place.remove();
        }
      }),
      { numRuns: Math.round((backend.name === 'leveldb' ? 60 : 25) * runs), seed: 20261125 },
    );
  });
}

test('ids order as their UTF-8 bytes do, also outside the Basic Multilingual Plane', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
      assert.is(Math.sign(compareUtf8(a, b)), Math.sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))));
    }),
    { numRuns: 2000, seed: 7 },
  );
});

/** A genesis index of the given events (id, second, place number), none with causes. */
function genesisIndexOf(placeNames: string[], events: [id: string, seconds: number, place: number][]): GenesisIndex {
  return runToEnd(
    buildGenesisIndex({
      ids: events.map(([id]) => id),
      seconds: Float64Array.from(events, ([, seconds]) => seconds),
      nanos: new Int32Array(events.length),
      place: Int32Array.from(events, ([, , place]) => place),
      placeNames,
      causeOffsets: new Int32Array(events.length + 1),
      causeTargets: new Int32Array(0),
      external: [],
    }),
  )!;
}

test('a search walks the one place that has all its words, else its rarest word kept to the places with all', () => {
  // In time order: b (Bergen), d (Oslo, Kentucky), f, c, a (Oslo, Norway), e (Rome).
  const index = genesisIndexOf(
    ['oslo norway', 'bergen norway', 'rome italy', 'oslo kentucky'],
    [['a', 5, 0], ['b', 1, 1], ['c', 4, 0], ['d', 2, 3], ['e', 6, 2], ['f', 3, 0]],
  );
  const walked = (words: string[], driver: string | undefined) => {
    const walk = searchPositions(index, words, driver);
    return walk && { positions: walk.positions && [...walk.positions].map((position) => index.ids[position]), places: walk.places && 'some' };
  };
  assert.equal(walked(['norway', 'oslo'], 'oslo'), { positions: ['f', 'c', 'a'], places: undefined });
  assert.equal(walked(['oslo'], 'oslo'), { positions: ['d', 'f', 'c', 'a'], places: undefined });
  assert.equal(walked(['norway'], 'norway'), { positions: ['b', 'f', 'c', 'a'], places: undefined });
  assert.equal(walked([], undefined), { positions: undefined, places: undefined });
  assert.is(walked(['kentucky', 'norway'], 'kentucky'), undefined);
  assert.is(walked(['paris'], 'paris'), undefined);
  assert.equal([...placesWithAll(index, ['norway', 'oslo'])!], [0]);
  assert.equal([...placesWithAll(index, ['italy', 'norway'])!], []);
  assert.equal([...placesWithAll(index, ['norway'])!], [0, 1]);
});

test('a search whose words several places share walks the rarest word, kept to those places', () => {
  const index = genesisIndexOf(['york new', 'york new old', 'york old'], [['a', 1, 0], ['b', 2, 1], ['c', 3, 2], ['d', 4, 0]]);
  const walk = searchPositions(index, ['new', 'york'], 'new')!;
  assert.equal([...walk.positions!].map((position) => index.ids[position]), ['a', 'b', 'd']);
  assert.equal([walk.places!.has(0), walk.places!.has(1), walk.places!.has(2)], [true, true, false]);
});

test('when even the rarest word is at hundreds of places, the walk tests each place it meets instead', () => {
  // 300 places "york new", then one "york old"; one event at each.
  const placeNames = [...Array.from({ length: 300 }, () => 'york new'), 'york old'];
  const index = genesisIndexOf(placeNames, placeNames.map((_, i) => [`e${String(i).padStart(3, '0')}`, i, i]));
  assert.is(placesWithAll(index, ['new', 'york']), undefined, 'not found up front');
  const walk = searchPositions(index, ['new', 'york'], 'new')!;
  assert.is(walk.positions!.length, 300);
  assert.equal([walk.places!.has(0), walk.places!.has(299), walk.places!.has(300)], [true, true, false]);
  const old = searchPositions(index, ['old', 'york'], 'old')!;
  assert.equal([...old.positions!].map((position) => index.ids[position]), ['e300'], 'the one place with both words');
});

test('sorting in steps gives the order a plain stable sort gives, for inputs longer than one run', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 10_000 }), (values) => {
      const order = runToEnd(sortedIndexes(values.length, (a, b) => values[a]! - values[b]!));
      const expected = values.map((_, i) => i).sort((a, b) => values[a]! - values[b]! || a - b);
      assert.equal([...order], expected);
    }),
    { numRuns: 40, seed: 11 },
  );
});

test.run();
