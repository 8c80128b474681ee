// When a level's in-memory genesis index is built: on the level's first search, which waits for it whatever the
// genesis size, or as the store opens, for primary, where the store is asked to (the server does).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LevelTimelineStore, type TimelineStore } from '../../src/store/index.ts';
import { Tag, prefixEnd, tagKey } from '../../src/store/keys.ts';
import { KeyValueSpace } from '../../src/store/level/kv-space.ts';
import { decodeRecord } from '../../src/store/event-codec.ts';
import { GenesisLevels } from '../../src/store/genesis-levels.ts';
import type { StoredTimeline } from '../../src/store/timeline-registry.ts';
import type { GenesisEvent } from '../../src/store/types.ts';
import { generateSyntheticEvents } from '../../src/synthetic/generator.ts';
import { parseInstant } from '../../src/time/index.ts';
import { openTempLevel } from './temp-store.ts';

/** At and above 100 000 events a search used to read the stored index while the in-memory one was built. */
const EVENTS = 100_000;

const heldIndexBytes = (store: TimelineStore) => store.cacheCounts().find((counts) => counts.name === 'genesis_index')!.bytes;
/** A built index of EVENTS events holds megabytes; one being built is held at a placeholder's byte. */
const built = (store: TimelineStore) => heldIndexBytes(store) > EVENTS;

test('a search waits for its genesis index; a store asked to builds primary\'s as it opens', async () => {
  const { db, remove } = await openTempLevel('tms-index-build-');
  try {
    const loader = new LevelTimelineStore(db);
    await loader.open();
    assert.is(await loader.bulkLoad('primary', generateSyntheticEvents({ events: EVENTS, places: 100 })), EVENTS);
    await loader.close();

    const lazy = new LevelTimelineStore(db);
    await lazy.open();
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.is(heldIndexBytes(lazy), 0, 'no index before the first search');
    const page = await lazy.search('primary', { words: ['place', '7'], start: parseInstant('1900-01-01T00:00:00Z'), pageSize: 10 });
    assert.is(page.events.length, 10);
    assert.ok(built(lazy), `built when the first search answers (${heldIndexBytes(lazy)} bytes held)`);
    await lazy.close();

    const eager = new LevelTimelineStore(db, { indexPrimaryAtOpen: true });
    await eager.open();
    const givesUpAt = Date.now() + 30_000;
    while (!built(eager) && Date.now() < givesUpAt) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(built(eager), `built with no search (${heldIndexBytes(eager)} bytes held)`);
    const again = await eager.search('primary', { words: ['place', '7'], start: parseInstant('1900-01-01T00:00:00Z'), pageSize: 10 });
    assert.equal(again, page);
    await eager.close();

    const closedAtOnce = new LevelTimelineStore(db, { indexPrimaryAtOpen: true });
    await closedAtOnce.open();
    await closedAtOnce.close();
    assert.ok(built(closedAtOnce), `close waits for the build begun at open (${heldIndexBytes(closedAtOnce)} bytes held)`);
  } finally {
    await remove();
  }
});

test('a level whose index cannot be built is searched on the store\'s index, without trying again each search', async () => {
  const { db, remove } = await openTempLevel('tms-index-fail-');
  try {
    const loader = new LevelTimelineStore(db);
    await loader.open();
    await loader.bulkLoad('primary', generateSyntheticEvents({ events: 500, places: 10 }));
    const query = { words: ['place', '3'], start: parseInstant('1900-01-01T00:00:00Z'), pageSize: 7 };
    const expected = await loader.search('primary', query);
    await loader.close();
    // The genesis snapshot the index is built from, lost.
    const entries = new KeyValueSpace(db, 't');
    await entries.open();
    await entries.clear({ gte: tagKey(Tag.snapshot), lt: prefixEnd(tagKey(Tag.snapshot)) });

    const store = new LevelTimelineStore(db, { searchCacheBytes: 0 });
    await store.open();
    assert.equal(await store.search('primary', query), expected);
    const afterFirst = store.cacheCounts().find((counts) => counts.name === 'genesis_snapshot')!;
    assert.equal(await store.search('primary', query), expected);
    const afterSecond = store.cacheCounts().find((counts) => counts.name === 'genesis_snapshot')!;
    assert.is(afterSecond.misses, afterFirst.misses, 'the snapshot is not read again');
    assert.is(heldIndexBytes(store), 1, 'no index held, only the failed build\'s mark');
    await store.close();
  } finally {
    await remove();
  }
});

test('an index evicted for another level\'s is rebuilt without waiting; one larger than the budget is not built again; a clear forgets every build', async () => {
  const { db, remove } = await openTempLevel('tms-index-evict-');
  try {
    // Two leaf timelines with a genesis each, over an empty primary: each one's search needs its own index only.
    const store = new LevelTimelineStore(db);
    await store.open();
    for (const name of ['a', 'b']) {
      const leaf = await store.createTimeline({ kind: 'alternate', base_timeline_id: 'primary', description: name, variation: '', owner: 'u' });
      const events = Array.from({ length: 2000 }, (_, i): GenesisEvent => ({
        event_id: `${name}_${i}`,
        description: `event ${i}`,
        time: parseInstant(`19${String(10 + (i % 80))}-01-01T00:00:00Z`),
        location: `Place ${i % 40}`,
        causes: [],
      }));
      await store.bulkLoad(leaf.timeline_id, events);
    }
    const records = new Map<number, StoredTimeline>();
    for (const [, value] of await store.entries.entries({ gte: tagKey(Tag.timeline), lt: prefixEnd(tagKey(Tag.timeline)) })) {
      const record = decodeRecord<StoredTimeline>(value);
      if (record.genesis_count > 0) records.set(record.level, record);
    }
    const [a, b] = [...records.keys()];
    assert.ok(a !== undefined && b !== undefined, 'two genesis levels');
    const snapshotReads = (levels: GenesisLevels) => levels.counts().find((counts) => counts.name === 'genesis_snapshot')!;

    const probe = new GenesisLevels(store.entries, (level) => records.get(level));
    await probe.indexSoon(a);
    const oneIndex = probe.counts().find((counts) => counts.name === 'genesis_index')!.bytes;
    assert.ok(oneIndex > 2000, `an index of 2000 events (${oneIndex} bytes)`);

    const roomForOne = new GenesisLevels(store.entries, (level) => records.get(level), { indexCacheBytes: Math.floor(oneIndex * 1.5) });
    const firstA = roomForOne.indexSoon(a);
    assert.instance(firstA, Promise, 'a first build is waited for');
    await firstA;
    assert.ok(roomForOne.readyIndex(a));
    await roomForOne.indexSoon(b);
    assert.ok(roomForOne.readyIndex(b));
    assert.is(roomForOne.readyIndex(a), undefined, 'evicted for b\'s');
    assert.is(roomForOne.indexSoon(a), undefined, 'its rebuild is not waited for');
    const givesUpAt = Date.now() + 10_000;
    while (!roomForOne.readyIndex(a) && Date.now() < givesUpAt) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.ok(roomForOne.readyIndex(a), 'but it is rebuilt');

    const roomForNone = new GenesisLevels(store.entries, (level) => records.get(level), { indexCacheBytes: Math.floor(oneIndex / 2) });
    await roomForNone.indexSoon(a);
    assert.is(roomForNone.readyIndex(a), undefined, 'too large to keep');
    const reads = snapshotReads(roomForNone);
    assert.is(roomForNone.indexSoon(a), undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(snapshotReads(roomForNone), reads, 'and not built again');
    assert.is(roomForNone.readyIndex(a), undefined);

    const cleared = new GenesisLevels(store.entries, (level) => records.get(level));
    const begun = cleared.indexSoon(a);
    cleared.clear();
    await begun;
    assert.instance(cleared.indexSoon(a), Promise, 'a build begun before a clear does not count as built: the next one is waited for');
    await store.close();
  } finally {
    await remove();
  }
});

test.run();
