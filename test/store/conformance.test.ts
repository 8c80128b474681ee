// The timeline store conformance suite on every backend (test/support/backends.ts): LevelDB always,
// PostgreSQL when TMS_TEST_DATABASE_URL is set.
import type { TimelineStoreOptions } from '../../src/store/timeline-store.ts';
import type { Storage } from '../../src/store/storage.ts';
import { testBackends, type TestBackend } from '../support/backends.ts';
import { runConformanceSuite, type StoreHarness } from './conformance.ts';

const harnessOn = (backend: TestBackend, timelineOptions: TimelineStoreOptions) => async (): Promise<StoreHarness> => {
  const place = await backend.newPlace();
  let storage: Storage = await place.open({ timelineOptions });
  const harness: StoreHarness = {
    store: storage.timelines,
    async reopen() {
      await storage.close();
      storage = await place.open({ timelineOptions });
      harness.store = storage.timelines;
      return storage.timelines;
    },
    storageBytes: () => place.storageBytes(),
    async dispose() {
      await storage.close();
      await place.remove();
    },
  };
  return harness;
};

for (const backend of testBackends) {
  runConformanceSuite(`timeline store on ${backend.name}`, harnessOn(backend, {}));
  // Genesis events are normally searched in an in-memory index; this run reads them from the backend's index.
  runConformanceSuite(`timeline store on ${backend.name}, genesis on the stored index`, harnessOn(backend, { genesisIndexes: false }));
  // Every other run serves repeated searches from the page cache; this one reads every search from the backend.
  runConformanceSuite(`timeline store on ${backend.name}, no search page cache`, harnessOn(backend, { searchCacheBytes: 0 }));
}
