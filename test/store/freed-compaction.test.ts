// The disk space of deleted timelines returns through LevelDB compactions of their ranges, run in the background
// and coalesced: the deletions within the delay share one pass (one compaction per stored tag), and closing the
// store runs a pass still due instead of leaving it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openTempLevel } from './temp-store.ts';
import { LEVEL_TAGS } from '../../src/store/keys.ts';
import { KeyValueSpace } from '../../src/store/level/kv-space.ts';
import type { OrderedKeyValueStore } from '../../src/store/ordered-kv.ts';
import { CopyOnWriteTimelineStore } from '../../src/store/timeline-store.ts';

interface Context {
  removeDb: () => Promise<void>;
  compactions: number[];
  open(delayMs: number): Promise<CopyOnWriteTimelineStore>;
}

const freed = suite<Context>('freed-range compaction');
freed.before.each(async (context) => {
  const { db, remove } = await openTempLevel('tms-freed-');
  context.removeDb = remove;
  const space = new KeyValueSpace(db, 't');
  const compactions: number[] = (context.compactions = []);
  // The real LevelDB underneath; the test only notes when each compaction was asked for.
  const counted: OrderedKeyValueStore = Object.assign(Object.create(space) as OrderedKeyValueStore, {
    compact(start: Uint8Array, end: Uint8Array) {
      compactions.push(Date.now());
      return space.compact(start, end);
    },
  });
  context.open = async (freedCompactionDelayMs) => {
    const store = new CopyOnWriteTimelineStore(counted, { searchCacheBytes: 0, freedCompactionDelayMs });
    await store.open();
    return store;
  };
});
freed.after.each(async ({ removeDb }) => {
  await removeDb();
});

const branch = (store: CopyOnWriteTimelineStore) =>
  store.createTimeline({ kind: 'alternate', base_timeline_id: 'primary', description: '', variation: '', owner: 'u' });

freed('five deletions within the delay share one pass: one compaction per tag, after the delay', async ({ open, compactions }) => {
  // Long enough for five synced deletions on a loaded disk to fit inside it.
  const store = await open(3000);
  const branches = [];
  for (let i = 0; i < 5; i++) branches.push(await branch(store));
  const started = Date.now();
  for (const { timeline_id } of branches) await store.deleteTimeline(timeline_id);
  assert.is(compactions.length, 0, 'nothing compacted while the delay runs');
  for (const givesUpAt = Date.now() + 10_000; compactions.length < LEVEL_TAGS.length && Date.now() < givesUpAt; ) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await new Promise((resolve) => setTimeout(resolve, 400));
  assert.is(compactions.length, LEVEL_TAGS.length, 'one pass for all five');
  assert.ok(compactions[0]! - started >= 2900, `the pass waited for the delay (${compactions[0]! - started} ms)`);
  await store.close();
  assert.is(compactions.length, LEVEL_TAGS.length, 'nothing left for the close');
});

freed('closing the store runs a pass that is still due, and waits for it', async ({ open, compactions }) => {
  const store = await open(60_000);
  await store.deleteTimeline((await branch(store)).timeline_id);
  assert.is(compactions.length, 0);
  await store.close();
  assert.is(compactions.length, LEVEL_TAGS.length);
});

freed.run();
