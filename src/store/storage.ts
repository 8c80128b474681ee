import type { AccountStore, LoadedAccounts } from '../accounts/account-store.ts';
import type { SavedRequestRecord } from '../saved-requests/records.ts';
import type { SavedRequestStore } from '../saved-requests/saved-request-store.ts';
import type { TimelineStore } from './types.ts';
import type { EntryReader, OrderedKeyValueStore } from './ordered-kv.ts';
import type { TimelineStoreOptions } from './timeline-store.ts';
import { openLevelStorage } from './level/open-level-storage.ts';
import { openPostgresStorage } from './postgres/open-postgres-storage.ts';

/**
 * Everything a store holds, read at one point in time however much is written meanwhile (`tms backup`):
 * LevelDB reads every sublevel from one explicit snapshot, PostgreSQL from one REPEATABLE READ transaction.
 */
export interface StoreView {
  /** The timeline store's entries in key order (close the reader when done). */
  entries(): EntryReader;
  /** How many there are (keys only: cheaper than reading them). */
  countEntries(): Promise<number>;
  /** Accounts, keys and sessions (lockouts are left out: they are short-lived and per attack). */
  accounts(): Promise<LoadedAccounts>;
  savedRequests(): AsyncIterable<SavedRequestRecord>;
}

/** Everything tms keeps, in one backend: what the service and the command-line tools open. */
export interface Storage {
  timelines: TimelineStore;
  accounts: AccountStore;
  savedRequests: SavedRequestStore;
  /** The timeline store's own keys and values, for copying a whole store between backends (`tms copy-store`). */
  timelineEntries: OrderedKeyValueStore;
  /** Runs `work` on one consistent view of the whole store, while the store keeps serving; closed when it settles. */
  snapshotAll<T>(work: (view: StoreView) => Promise<T>): Promise<T>;
  /** Why the backend cannot serve now (the database unreachable), for the readiness check; undefined when it can. */
  problem(): string | undefined;
  /** Closes the stores, then the backend; the stores' own writes in flight finish first. */
  close(): Promise<void>;
}

/** The store cannot be opened for a reason an operator can fix; the message names the cause and the fix. */
export class StoreOpenError extends Error {
  override name = 'StoreOpenError';
}

/** The backend cannot be reached or did not answer in time: the request may succeed when retried. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}

export interface StorageOptions {
  /** The embedded LevelDB's folder (unused with `databaseUrl`). */
  dataDir: string;
  /** PostgreSQL instead of LevelDB: the node then keeps nothing on its local disk. */
  databaseUrl?: string;
  /** The PostgreSQL schema of the store's tables (default `public`; `tms restore` stages a backup in another). */
  databaseSchema?: string;
  /** Make the folder when it does not exist (the server does; the account tools do not). */
  create?: boolean;
  /** The owner of `primary` when the store creates it (`''`, the default: no account; everyone reads it, admins change it). */
  primaryOwner?: string;
  /** Tuning of the timeline store (tests run it with its caches and shortcuts off). */
  timelineOptions?: TimelineStoreOptions;
}

export function openStorage(options: StorageOptions): Promise<Storage> {
  if (options.databaseUrl) return openPostgresStorage({ ...options, url: options.databaseUrl, schema: options.databaseSchema });
  return openLevelStorage(options);
}
