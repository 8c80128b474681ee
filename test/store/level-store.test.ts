import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { LevelTimelineStore, type LevelTimelineStoreOptions } from '../../src/store/index.ts';
import { runConformanceSuite, type StoreHarness } from './conformance.ts';

async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) total += (await stat(join(dir, name))).size;
  return total;
}

const levelHarness = (options: LevelTimelineStoreOptions) => async (): Promise<StoreHarness> => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-store-'));
  let db = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' });
  await db.open();
  let store = new LevelTimelineStore(db, options);
  await store.open();
  const harness: StoreHarness = {
    store,
    async reopen() {
      await store.close();
      await db.close();
      db = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' });
      await db.open();
      store = new LevelTimelineStore(db, options);
      await store.open();
      harness.store = store;
      return store;
    },
    storageBytes: () => directoryBytes(dir),
    async dispose() {
      await store.close();
      await db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return harness;
};

runConformanceSuite('LevelTimelineStore', levelHarness({}));
// Small levels are normally searched from memory; this run sends every level through its LevelDB indexes.
runConformanceSuite('LevelTimelineStore, index iterators only', levelHarness({ memoryScanLimit: -1 }));
// Every other run serves repeated searches from the page cache; this one reads every search from LevelDB.
runConformanceSuite('LevelTimelineStore, no search page cache', levelHarness({ searchCacheEvents: 0 }));
