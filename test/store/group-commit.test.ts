// Group commit in the timeline store: concurrent writes, to one timeline or several, go to disk in a few
// synced batches, each acknowledged only once its batch is durable; a batch that fails fails every write built
// on it, and leaves nothing of them behind. (Acknowledged writes surviving kill -9: durability.test.ts.)
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openTempLevel } from './temp-store.ts';
import { KeyValueSpace } from '../../src/store/level/kv-space.ts';
import { Tag, tagKey } from '../../src/store/keys.ts';
import type { OrderedKeyValueStore, WriteOp } from '../../src/store/ordered-kv.ts';
import { CopyOnWriteTimelineStore } from '../../src/store/timeline-store.ts';
import { parseInstant } from '../../src/time/index.ts';

interface Context {
  removeDb: () => Promise<void>;
  store: CopyOnWriteTimelineStore;
  synced: number[];
  /** How many times each synced batch puts primary's timeline record. */
  recordPuts: number[];
  space: KeyValueSpace;
  failNext: { count: number };
}

const groups = suite<Context>('group commit');
groups.before.each(async (context) => {
  const { db, remove } = await openTempLevel('tms-group-');
  context.removeDb = remove;
  const space = new KeyValueSpace(db, 't');
  context.synced = [];
  context.recordPuts = [];
  context.space = space;
  context.failNext = { count: 0 };
  const { synced, recordPuts, failNext } = context;
  const primaryRecord = tagKey(Tag.timeline, 'primary');
  // The real LevelDB underneath; the test only counts synced batches and can make some fail.
  const counted: OrderedKeyValueStore = Object.assign(Object.create(space) as OrderedKeyValueStore, {
    async write(ops: WriteOp[], durable: boolean) {
      if (durable) synced.push(ops.length);
      if (durable) recordPuts.push(ops.filter((op) => op.type === 'put' && Buffer.from(op.key).equals(primaryRecord)).length);
      if (durable && failNext.count > 0) {
        failNext.count -= 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error('disk full');
      }
      return space.write(ops, durable);
    },
  });
  context.store = new CopyOnWriteTimelineStore(counted, { searchCacheBytes: 0 });
  await context.store.open();
});
groups.after.each(async ({ store, removeDb }) => {
  await store.close();
  await removeDb();
});

const event = (description: string) => ({ description, time: parseInstant('1600-01-01T00:00:00Z'), location: 'Delft', causes: [] });

groups('setting a timeline\'s stability to the one it has (every paradox check sets it) writes nothing', async ({ store, synced }) => {
  const first = synced.length;
  await store.setStability('primary', 'Stable');
  assert.is(synced.length, first + 1, 'a new stability is written');
  assert.is((await store.getTimeline('primary'))!.stability, 'Stable');
  await store.setStability('primary', 'Stable');
  assert.is(synced.length, first + 1, 'the same one again is not');
  await store.setStability('primary', 'Unstable');
  assert.is(synced.length, first + 2);
  assert.is((await store.getTimeline('primary'))!.stability, 'Unstable');
});

groups('100 concurrent writes to one timeline: all acknowledged, in far fewer synced batches, each building on the last', async ({ store, synced }) => {
  const before = synced.length;
  const written = await Promise.all(Array.from({ length: 100 }, (_, i) => store.insertEvent('primary', event(`e${i}`), 'tester')));
  const batches = synced.length - before;
  assert.ok(batches < 50, `${batches} synced batches for 100 writes`);
  const primary = (await store.getTimeline('primary'))!;
  assert.is(primary.revision, 100, 'every write is one revision: none built on a stale record');
  assert.is(primary.event_count, 100);
  for (const record of written) assert.equal(await store.getEvent('primary', record.event_id), record);

  // Manipulations that each read the version the one before wrote, all in flight together.
  const target = written[0]!;
  const first = store.manipulate('primary', target.event_id, { description: 'once', changes: [] }, 'tester');
  const second = store.manipulate('primary', target.event_id, { description: 'twice', changes: [] }, 'tester');
  const [ok, refused] = await Promise.allSettled([first, second]);
  assert.is(ok.status, 'fulfilled');
  assert.is(refused.status, 'rejected', 'the second saw the first one\'s version (already superseded), though it was not durable yet');
});

groups('a batch of many writes to one timeline writes its record once, the newest, which a reopened store reads', async ({ store, space, synced, recordPuts }) => {
  const before = synced.length;
  await Promise.all(Array.from({ length: 50 }, (_, i) => store.insertEvent('primary', event(`e${i}`), 'tester')));
  const batches = recordPuts.slice(before);
  assert.ok(batches.length < 50, `${batches.length} synced batches for 50 writes`);
  assert.equal(batches, batches.map(() => 1), 'each batch puts the timeline record once');
  await store.close();
  const reopened = new CopyOnWriteTimelineStore(space, { searchCacheBytes: 0 });
  await reopened.open();
  try {
    const primary = (await reopened.getTimeline('primary'))!;
    assert.is(primary.revision, 50, 'the record on disk is the last write\'s');
    assert.is(primary.event_count, 50);
  } finally {
    await reopened.close();
  }
});

groups('a checked write waits for the writes queued before it to be durable, so its check sees them', async ({ store }) => {
  const target = await store.insertEvent('primary', event('target'), 'tester');
  const ahead = Array.from({ length: 20 }, (_, i) => store.insertEvent('primary', event(`ahead${i}`), 'tester'));
  let seenByCheck = -1;
  const checked = store.manipulate('primary', target.event_id, { description: 'checked', changes: [] }, 'tester', async () => {
    seenByCheck = (await store.getTimeline('primary'))!.revision;
  });
  await Promise.all([...ahead, checked]);
  assert.is(seenByCheck, 21, 'the check ran on the timeline with all 20 writes ahead of it committed');
  assert.is((await store.getTimeline('primary'))!.revision, 22);
});

groups('a synced batch that fails fails the writes built on it; memory and disk keep none of them', async ({ store, failNext }) => {
  const kept = await store.insertEvent('primary', event('kept'), 'tester');
  failNext.count = 1;
  const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => store.insertEvent('primary', event(`lost${i}`), 'tester')));
  const failed = outcomes.filter((o) => o.status === 'rejected').length;
  assert.ok(failed >= 1, 'the failed batch failed its writes');
  const succeeded = outcomes.filter((o): o is PromiseFulfilledResult<Awaited<ReturnType<typeof store.insertEvent>>> => o.status === 'fulfilled');
  const primary = (await store.getTimeline('primary'))!;
  assert.is(primary.revision, 1 + succeeded.length, 'the revision counts acknowledged writes only');
  assert.is(primary.event_count, 1 + succeeded.length);
  const page = await store.search('primary', { words: ['delft'], pageSize: 100 });
  assert.equal(page.events.map((e) => e.event_id).sort(), [kept, ...succeeded.map((o) => o.value)].map((e) => e.event_id).sort());
  // And the timeline still takes writes.
  const after = await store.insertEvent('primary', event('after'), 'tester');
  assert.is((await store.getTimeline('primary'))!.revision, primary.revision + 1);
  assert.equal(await store.getEvent('primary', after.event_id), after);
});

groups('a durable write reaches LevelDB with sync set, a bulk write without', async () => {
  const { db, remove } = await openTempLevel('tms-sync-');
  const seen: unknown[] = [];
  // The root database's backend hook, where classic-level reads the option; a sublevel's batch ends there.
  const backend = db as unknown as { _batch(ops: unknown[], options: { sync?: boolean }): Promise<void> };
  const write = backend._batch.bind(backend);
  backend._batch = (ops, options) => {
    seen.push(options.sync);
    return write(ops, options);
  };
  try {
    const space = new KeyValueSpace(db, 't');
    await space.open();
    const put = (key: number): WriteOp => ({ type: 'put', key: Uint8Array.of(key), value: Uint8Array.of(1) });
    await space.write([put(1), put(2)], true);
    await space.write([put(3)], false);
    assert.equal(seen, [true, undefined]);
    assert.equal((await space.entries({})).length, 3);
  } finally {
    await remove();
  }
});

groups.run();
