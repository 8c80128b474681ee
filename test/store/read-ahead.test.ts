// A write reads its event ahead of its turn in the timeline's queue: the reads of writes arriving together
// go to the store as one read, and each turn still builds on the version the writes before it left.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openTempLevel } from './temp-store.ts';
import { KeyValueSpace } from '../../src/store/level/kv-space.ts';
import type { OrderedKeyValueStore } from '../../src/store/ordered-kv.ts';
import { CopyOnWriteTimelineStore } from '../../src/store/timeline-store.ts';
import { parseInstant } from '../../src/time/index.ts';

interface Context {
  remove: () => Promise<void>;
  space: KeyValueSpace;
  ids: string[];
}

const readAhead = suite<Context>('reads ahead of a write\'s turn');
readAhead.before.each(async (context) => {
  const { db, remove } = await openTempLevel('tms-read-ahead-');
  context.remove = remove;
  context.space = new KeyValueSpace(db, 't');
  const writer = new CopyOnWriteTimelineStore(context.space, {});
  await writer.open();
  const events = Array.from({ length: 20 }, (_, i) => ({ description: `e${i}`, time: parseInstant('1600-01-01T00:00:00Z'), location: 'Delft', causes: [] }));
  context.ids = (await Promise.all(events.map((event) => writer.insertEvent('primary', event, 'tester')))).map((record) => record.event_id);
  await writer.close();
});
readAhead.after.each(async ({ remove }) => remove());

/** A store reopened on the same LevelDB (nothing read yet is kept), counting the store reads it makes. */
async function reopened(space: KeyValueSpace, versionCacheBytes?: number) {
  const reads: number[] = [];
  const counted: OrderedKeyValueStore = Object.assign(Object.create(space) as OrderedKeyValueStore, {
    get: (key: Uint8Array) => (reads.push(1), space.get(key)),
    getMany: (keys: Uint8Array[]) => (reads.push(keys.length), space.getMany(keys)),
  });
  const store = new CopyOnWriteTimelineStore(counted, versionCacheBytes === undefined ? {} : { versionCacheBytes });
  await store.open();
  reads.length = 0;
  return { store, reads };
}

readAhead('20 manipulations arriving together read their 20 events in one store read', async ({ space, ids }) => {
  const { store, reads } = await reopened(space);
  const results = await Promise.all(ids.map((id, i) => store.manipulate('primary', id, { description: `m${i}`, changes: [] }, 'tester')));
  assert.equal(reads, [20], 'one read of the store, of every event once');
  results.forEach((result, i) => {
    assert.is(result.original.event_id, ids[i]);
    assert.is(result.original.superseded_by, result.created.event_id);
  });
  assert.is((await store.getTimeline('primary'))!.revision, 40);
  await store.close();
});

readAhead('a manipulation queued behind another of the same event builds on its version, not on the one read ahead', async ({ space, ids }) => {
  const { store } = await reopened(space);
  const target = ids[0]!;
  const outcomes = await Promise.allSettled([
    store.manipulate('primary', target, { description: 'first', changes: [] }, 'tester'),
    store.manipulate('primary', target, { description: 'second', changes: [] }, 'tester'),
    store.revert('primary', target, 'tester'),
  ]);
  assert.is(outcomes[0].status, 'fulfilled');
  const created = (outcomes[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof store.manipulate>>>).value.created;
  assert.is(outcomes[1].status, 'rejected');
  assert.match(String((outcomes[1] as PromiseRejectedResult).reason), `already superseded by "${created.event_id}"`);
  assert.is(outcomes[2].status, 'rejected', 'the original is superseded: only the manipulated event can be reverted');
  assert.is((await store.getEvent('primary', target))!.superseded_by, created.event_id);
  await store.close();
});

readAhead('without a version cache nothing is read ahead: each write reads once, in its turn', async ({ space, ids }) => {
  const { store, reads } = await reopened(space, 0);
  await Promise.all(ids.slice(0, 5).map((id) => store.manipulate('primary', id, { description: 'm', changes: [] }, 'tester')));
  assert.equal(reads, [1, 1, 1, 1, 1]);
  await store.close();
});

readAhead('a read ahead of an unknown event leaves the answer to the turn: not found, and the timeline unchanged', async ({ space }) => {
  const { store } = await reopened(space);
  const failed = await store.manipulate('primary', 'no-such-event', { description: 'm', changes: [] }, 'tester').catch((error: unknown) => error);
  assert.is((failed as { code?: string }).code, 'not_found');
  assert.is((await store.getTimeline('primary'))!.revision, 20);
  await store.close();
});

readAhead.run();
