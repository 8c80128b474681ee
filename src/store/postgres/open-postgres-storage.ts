import type { Storage, StorageOptions } from '../storage.ts';
import { CopyOnWriteTimelineStore } from '../timeline-store.ts';
import { migrate } from './migrations.ts';
import { openPool, type PostgresOptions } from './pool.ts';
import { PgAccountStore } from './pg-account-store.ts';
import { PgKeyValueSpace } from './pg-key-value-space.ts';
import { PgSavedRequestStore } from './pg-saved-request-store.ts';

/**
 * Connects, brings the schema up to date (once, however many nodes start together), and opens the stores:
 * nothing is kept on the local disk.
 */
export async function openPostgresStorage(options: PostgresOptions & Pick<StorageOptions, 'primaryOwner' | 'timelineOptions'>): Promise<Storage> {
  const pool = openPool(options);
  try {
    await migrate(pool, options.schema ?? 'public');
    const timelines = new CopyOnWriteTimelineStore(new PgKeyValueSpace(pool), { ...options.timelineOptions, primaryOwner: options.primaryOwner ?? '' });
    await timelines.open();
    return {
      timelines,
      accounts: new PgAccountStore(pool),
      savedRequests: new PgSavedRequestStore(pool),
      async close() {
        await timelines.close();
        await pool.end();
      },
    };
  } catch (error) {
    await pool.end();
    throw error;
  }
}
