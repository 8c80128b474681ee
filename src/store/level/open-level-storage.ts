import { Level } from 'level';
import type { Storage, StorageOptions } from '../storage.ts';
import { LevelAccountStore } from './level-account-store.ts';
import { LevelSavedRequestStore } from './level-saved-request-store.ts';
import { LevelTimelineStore } from './level-timeline-store.ts';

/** The embedded backend: one LevelDB folder, each store in a sublevel of its own. */
export async function openLevelStorage(options: StorageOptions): Promise<Storage> {
  const db = new Level<Uint8Array, Uint8Array>(options.dataDir, {
    keyEncoding: 'view',
    valueEncoding: 'view',
    createIfMissing: options.create ?? true,
  });
  await db.open();
  try {
    const timelines = new LevelTimelineStore(db, { ...options.timelineOptions, primaryOwner: options.primaryOwner ?? '' });
    await timelines.open();
    const accounts = await LevelAccountStore.open(db);
    const savedRequests = await LevelSavedRequestStore.open(db);
    return {
      timelines,
      accounts,
      savedRequests,
      timelineEntries: timelines.entries,
      problem: () => undefined,
      async close() {
        await timelines.close();
        await db.close();
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
