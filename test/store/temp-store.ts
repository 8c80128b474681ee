import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { LevelTimelineStore } from '../../src/store/index.ts';

/** Runs `run` on an open timeline store over a real LevelDB in a temp folder, then closes and removes it. */
export async function withTempStore(run: (store: LevelTimelineStore) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tms-store-'));
  const db = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' });
  await db.open();
  const store = new LevelTimelineStore(db);
  await store.open();
  try {
    await run(store);
  } finally {
    await store.close();
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}
