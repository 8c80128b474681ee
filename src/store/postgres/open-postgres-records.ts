import type { Storage } from '../storage.ts';
import { migrate } from './migrations.ts';
import { openPool, type PostgresOptions } from './pool.ts';
import { PgAccountStore } from './pg-account-store.ts';
import { PgSavedRequestStore } from './pg-saved-request-store.ts';

/** The stores PostgreSQL holds so far: accounts and saved console requests (timelines are LevelDB's only). */
export type RecordStores = Pick<Storage, 'accounts' | 'savedRequests' | 'close'>;

/** Connects, brings the schema up to date (once, however many nodes start together), and opens the stores. */
export async function openPostgresRecords(options: PostgresOptions): Promise<RecordStores> {
  const pool = openPool(options);
  try {
    await migrate(pool, options.schema ?? 'public');
    return {
      accounts: new PgAccountStore(pool),
      savedRequests: new PgSavedRequestStore(pool),
      close: () => pool.end(),
    };
  } catch (error) {
    await pool.end();
    throw error;
  }
}
