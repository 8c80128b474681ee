import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Level } from 'level';
import { StoreOpenError, type Storage, type StorageOptions } from '../storage.ts';
import { LevelAccountStore } from './level-account-store.ts';
import { LevelSavedRequestStore } from './level-saved-request-store.ts';
import { LevelTimelineStore } from './level-timeline-store.ts';

/**
 * How the service opens its LevelDB. The memtable is 16 MiB, not LevelDB's 4 MiB: a busy timeline's writes
 * (six entries, about 2.5 KB, a manipulation) filled 4 MiB every second or two, and the level-0 files and
 * compactions that followed cost about a seventh of a write's process CPU (docs/performance.md, "Writes: reads
 * ahead of the turn, and LevelDB's memtable").
 */
export const LEVEL_OPTIONS = { keyEncoding: 'view', valueEncoding: 'view', writeBufferSize: 16 * 1024 * 1024 } as const;

/** The embedded backend: one LevelDB folder, each store in a sublevel of its own. */
export async function openLevelStorage(options: StorageOptions): Promise<Storage> {
  // LevelDB makes the folder (its lock and log) even when it may not create a store: a store that must exist is looked for first.
  if (options.create === false && !(await stat(join(options.dataDir, 'CURRENT')).catch(() => undefined))) {
    throw new StoreOpenError(`no tms data folder at ${options.dataDir} (give it with --data-dir or TMS_DATA_DIR)`);
  }
  // A folder of other files is never filled with a store's: a mistyped --data-dir must not land in ~/photos.
  const present = await readdir(options.dataDir).catch(() => [] as string[]);
  if (present.length > 0 && !present.includes('CURRENT') && !present.includes('LOCK')) {
    throw new StoreOpenError(`${options.dataDir} holds other files and no tms store; give a new or empty folder, or a tms data folder, with --data-dir or TMS_DATA_DIR`);
  }
  const db = new Level<Uint8Array, Uint8Array>(options.dataDir, { ...LEVEL_OPTIONS, createIfMissing: options.create ?? true });
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
      async snapshotAll(work) {
        // One snapshot of the root database: every sublevel read through it sees the same moment.
        const snapshot = db.snapshot();
        try {
          return await work({
            entries: () => timelines.entries.reader({}, snapshot),
            countEntries: () => timelines.entries.countKeys(snapshot),
            accounts: () => accounts.loadAll(snapshot),
            savedRequests: () => savedRequests.all(snapshot),
          });
        } finally {
          await snapshot.close();
        }
      },
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
