import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { LevelTimelineStore } from '../../src/store/index.ts';

export type TempDb = Level<Uint8Array, Uint8Array>;

/** A real LevelDB in the folder `dir`, open, with keys and values as bytes. */
export async function openLevel(dir: string): Promise<TempDb> {
  const db: TempDb = new Level(dir, { keyEncoding: 'view', valueEncoding: 'view' });
  await db.open();
  return db;
}

/** A real LevelDB, open, in a new temp folder named after `prefix`; `remove` closes it and deletes the folder. */
export async function openTempLevel(prefix: string): Promise<{ dir: string; db: TempDb; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const db = await openLevel(dir);
  return {
    dir,
    db,
    async remove() {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Runs `run` on an open timeline store over a real LevelDB in a temp folder, then closes and removes it. */
export async function withTempStore(run: (store: LevelTimelineStore) => Promise<void>): Promise<void> {
  const { db, remove } = await openTempLevel('tms-store-');
  const store = new LevelTimelineStore(db);
  await store.open();
  try {
    await run(store);
  } finally {
    await store.close();
    await remove();
  }
}
