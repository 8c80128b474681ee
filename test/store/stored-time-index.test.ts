/**
 * The store's genesis time index, which searches read while a level's in-memory index builds: a bulk load
 * writes words as its values and no word index; a store loaded before that (records as values, a word
 * index beside) is still searched correctly. Both are checked page by page against the answer computed
 * from the loaded events themselves, and against the in-memory index.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { levelPrefix, prefixEnd, Tag, tagKey, versionKey } from '../../src/store/keys.ts';
import { locationWords, type GenesisEvent, type TimelineStore } from '../../src/store/index.ts';
import type { OrderedKeyValueStore, WriteOp } from '../../src/store/ordered-kv.ts';
import { parseInstant } from '../../src/time/index.ts';
import { testBackends, type TestPlace } from '../support/backends.ts';
import { openTempLevel } from './temp-store.ts';
import { KeyValueSpace } from '../../src/store/level/kv-space.ts';
import { CopyOnWriteTimelineStore } from '../../src/store/timeline-store.ts';
import type { SnapshotReads } from '../../src/store/ordered-kv.ts';
import { ApiError } from '../../src/domain/errors.ts';

const PLACES = ['Oslo, Norway', 'Bergen, Norway', 'Rome, Italy', 'São Paulo, Brazil', ''];
const genesis: GenesisEvent[] = Array.from({ length: 120 }, (_, i) => ({
  event_id: `g${String((i * 37) % 120).padStart(3, '0')}`,
  description: `genesis ${i}`,
  // Ties in time on purpose: the id orders them.
  time: parseInstant(`1${String(100 + Math.floor(i / 3)).padStart(3, '0')}-01-01T00:00:00Z`),
  location: PLACES[i % PLACES.length]!,
  causes: i > 0 ? [`g${String(((i - 1) * 37) % 120).padStart(3, '0')}`] : [],
}));

const QUERIES = [
  { words: [] as string[], pageSize: 7 },
  { words: ['norway'], pageSize: 5 },
  { words: ['oslo', 'norway'], pageSize: 4 },
  { words: ['sao'], pageSize: 3, start: parseInstant('1120-01-01T00:00:00Z'), end: parseInstant('1135-01-01T00:00:00Z') },
  { words: ['italy', 'norway'], pageSize: 3 },
];

type Query = (typeof QUERIES)[number];

function expected(query: Query): string[] {
  const key = (event: GenesisEvent) => `${event.time.seconds + 10n ** 15n}|${event.event_id}`;
  return genesis
    .filter((event) => query.words.every((word) => locationWords(event.location).includes(word)))
    .filter((event) => (!('start' in query) || event.time.seconds >= query.start!.seconds) && (!('end' in query) || event.time.seconds <= query.end!.seconds))
    .sort((a, b) => (key(a) < key(b) ? -1 : 1))
    .map((event) => event.event_id);
}

async function allPages(store: TimelineStore, query: Query): Promise<string[]> {
  const found: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.search('primary', { ...query, ...(cursor && { cursor }) });
    assert.ok(page.events.length <= query.pageSize);
    found.push(...page.events.map((event) => event.event_id));
    cursor = page.nextCursor;
  } while (cursor);
  return found;
}

/** Searches the place through the store's index and through memory: both must give the computed answer. */
async function searchBothWays(place: TestPlace, what: string): Promise<void> {
  for (const genesisIndexes of [false, true]) {
    const storage = await place.open({ timelineOptions: { genesisIndexes, searchCacheBytes: 0 } });
    try {
      for (const query of QUERIES) {
        assert.equal(await allPages(storage.timelines, query), expected(query), `${what}, ${genesisIndexes ? 'in memory' : 'stored index'}: ${JSON.stringify(query.words)}`);
      }
    } finally {
      await storage.close();
    }
  }
}

async function primaryLevel(kv: OrderedKeyValueStore): Promise<number> {
  return (JSON.parse(Buffer.from((await kv.get(tagKey(Tag.timeline, 'primary')))!).toString()) as { level: number }).level;
}

const range = (tag: number, level: number) => ({ gte: levelPrefix(tag, level), lt: prefixEnd(levelPrefix(tag, level)) });

for (const backend of testBackends) {
  test(`${backend.name}: a bulk load writes the time index with words and no word index; both ways of searching agree`, async () => {
    const place = await backend.newPlace();
    try {
      const storage = await place.open();
      assert.is(await storage.timelines.bulkLoad('primary', genesis), genesis.length);
      await storage.close();
      const raw = await place.openKeyValues();
      try {
        const level = await primaryLevel(raw.kv);
        assert.equal(await raw.kv.keys(range(Tag.wordIndex, level)), [], 'no word index');
        const values = (await raw.kv.entries(range(Tag.timeIndex, level))).map(([, value]) => Buffer.from(value).toString());
        assert.is(values.length, genesis.length);
        assert.ok(values.includes('sao paulo brazil') && values.includes(''), 'words as values');
      } finally {
        await raw.close();
      }
      await searchBothWays(place, 'words in the time index');
    } finally {
      await place.remove();
    }
  });

  test(`${backend.name}: a store loaded with records in its time and word indexes is still searched correctly`, async () => {
    const place = await backend.newPlace();
    try {
      const storage = await place.open();
      await storage.timelines.bulkLoad('primary', genesis);
      await storage.close();
      // As loads wrote them before: the record as the value of its time entry and of one word entry per distinct word.
      const raw = await place.openKeyValues();
      try {
        const level = await primaryLevel(raw.kv);
        const ops: WriteOp[] = [];
        for (const [key] of await raw.kv.entries(range(Tag.timeIndex, level))) {
          const suffix = key.subarray(5);
          const eventId = Buffer.from(suffix).toString('utf8', 12);
          const json = (await raw.kv.get(versionKey(Tag.version, level, eventId, 0)))!;
          ops.push({ type: 'put', key, value: json });
          const location = (JSON.parse(Buffer.from(json).toString()) as { location: string }).location;
          for (const word of new Set(locationWords(location))) {
            ops.push({ type: 'put', key: Buffer.concat([levelPrefix(Tag.wordIndex, level), Buffer.from(word), Buffer.from([0]), suffix]), value: json });
          }
        }
        await raw.kv.write(ops, true);
      } finally {
        await raw.close();
      }
      await searchBothWays(place, 'records in the time index');
    } finally {
      await place.remove();
    }
  });
}

/**
 * A store over a temp LevelDB that searches genesis through the stored index, whose next search pauses at its first
 * read of that index while `meanwhile` runs: the search must answer for the store as it stood when it began.
 */
async function withPausedSearch(
  run: (store: CopyOnWriteTimelineStore, pausedSearch: (meanwhile: () => Promise<unknown>, timelineId?: string) => Promise<string[]>) => Promise<void>,
): Promise<void> {
  const { db, remove } = await openTempLevel('tms-stored-index-race-');
  try {
    const space = new KeyValueSpace(db, 't');
    let paused: (() => Promise<void>) | undefined;
    const held: OrderedKeyValueStore = Object.assign(Object.create(space) as OrderedKeyValueStore, {
      snapshot: <T>(work: (reads: SnapshotReads) => Promise<T>) =>
        space.snapshot((reads) =>
          work({
            reader: (range) => {
              const reader = reads.reader(range);
              return {
                next: async (count: number) => {
                  const pause = paused;
                  paused = undefined;
                  await pause?.();
                  return reader.next(count);
                },
                close: () => reader.close(),
              };
            },
          }),
        ),
    });
    const store = new CopyOnWriteTimelineStore(held, { genesisIndexes: false, searchCacheBytes: 0 });
    await store.open();
    try {
      await run(store, async (meanwhile, timelineId = 'primary') => {
        paused = async () => void (await meanwhile());
        const page = await store.search(timelineId, { words: ['rome'], pageSize: 5 });
        assert.is(paused, undefined, 'the search read the stored index');
        return page.events.map((event) => `${event.event_id} ${event.description}`);
      });
    } finally {
      await store.close();
    }
  } finally {
    await remove();
  }
}

const rome = genesis.filter((event) => event.location === 'Rome, Italy');
const firstPage = async (store: CopyOnWriteTimelineStore) =>
  (await store.search('primary', { words: ['rome'], pageSize: 5 })).events.map((event) => `${event.event_id} ${event.description}`);

test('a search of the stored index answers for the store as it began, though the timeline changes a genesis event meanwhile', async () => {
  await withPausedSearch(async (store, pausedSearch) => {
    await store.bulkLoad('primary', rome);
    const before = await firstPage(store);
    const target = before[2]!.split(' ')[0]!;
    assert.equal(await pausedSearch(() => store.manipulate('primary', target, { description: 'changed meanwhile', changes: [] }, 'tester')), before);
    assert.not.ok((await firstPage(store)).some((line) => line.startsWith(`${target} `)), 'a search begun after the change no longer finds the original');
  });
});

test('a search of the stored index answers for the store as it began, though the timeline changes an event it changed before', async () => {
  await withPausedSearch(async (store, pausedSearch) => {
    await store.bulkLoad('primary', rome);
    // The second of two changed events: the search has not yet looked past the first when it pauses.
    const [, first, , second] = (await firstPage(store)).map((line) => line.split(' ')[0]!);
    await store.manipulate('primary', first!, { description: 'changed once', changes: [] }, 'tester');
    const { created } = await store.manipulate('primary', second!, { description: 'changed once', changes: [] }, 'tester');
    const before = await firstPage(store);
    assert.ok(before.includes(`${created.event_id} changed once`));
    assert.equal(await pausedSearch(() => store.manipulate('primary', created.event_id, { description: 'changed twice', changes: [] }, 'tester')), before);
  });
});

test('a search of the stored index answers for the store as it began, though events are added before and among its page meanwhile', async () => {
  await withPausedSearch(async (store, pausedSearch) => {
    await store.bulkLoad('primary', rome);
    const insert = (description: string, time: string) => store.insertEvent('primary', { description, time: parseInstant(time), location: 'Rome, Italy', causes: [] }, 'tester');
    for (const year of ['1001', '1101', '1111', '1121']) await insert(`inserted ${year}`, `${year}-06-01T00:00:00Z`);
    const before = await firstPage(store);
    assert.ok(before.some((line) => line.endsWith('inserted 1101')));
    const added = await pausedSearch(async () => {
      for (const year of ['1000', '1002', '1100', '1102']) await insert(`added ${year}`, `${year}-06-01T00:00:00Z`);
    });
    assert.equal(added, before);
    assert.ok((await firstPage(store)).some((line) => line.endsWith('added 1000')), 'a search begun after the additions finds them');
  });
});

test('a branch deleted while a search of it reads the stored index: the search answers not_found, as one begun after would', async () => {
  await withPausedSearch(async (store, pausedSearch) => {
    await store.bulkLoad('primary', rome);
    const { timeline_id: branch } = await store.createTimeline({ kind: 'alternate', base_timeline_id: 'primary', description: 'b', variation: '', owner: '' });
    const target = (await firstPage(store))[0]!.split(' ')[0]!;
    await store.manipulate(branch, target, { description: 'on the branch', changes: [] }, 'tester');
    const error: unknown = await pausedSearch(() => store.deleteTimeline(branch), branch).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    assert.instance(error, ApiError);
    assert.is((error as ApiError).code, 'not_found');
    assert.match((error as ApiError).message, branch);
  });
});

test.run();
