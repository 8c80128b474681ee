import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { LevelTimelineStore } from '../../src/store/index.ts';
import { runConformanceSuite, type StoreHarness } from './conformance.ts';

async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) total += (await stat(join(dir, name))).size;
  return total;
}

runConformanceSuite('LevelTimelineStore', async (): Promise<StoreHarness> => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-store-'));
  let db = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' });
  await db.open();
  let store = new LevelTimelineStore(db);
  await store.open();
  const harness: StoreHarness = {
    store,
    async reopen() {
      await store.close();
      await db.close();
      db = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' });
      await db.open();
      store = new LevelTimelineStore(db);
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
});
