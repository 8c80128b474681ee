import type { AccountStore } from '../accounts/account-store.ts';
import type { SavedRequestStore } from '../saved-requests/saved-request-store.ts';
import type { TimelineStore } from './types.ts';
import type { TimelineStoreOptions } from './timeline-store.ts';
import { openLevelStorage } from './level/open-level-storage.ts';

/** Everything tms keeps, in one backend: what the service and the command-line tools open. */
export interface Storage {
  timelines: TimelineStore;
  accounts: AccountStore;
  savedRequests: SavedRequestStore;
  /** Closes the stores, then the backend; the stores' own writes in flight finish first. */
  close(): Promise<void>;
}

export interface StorageOptions {
  /** The embedded LevelDB's folder. */
  dataDir: string;
  /** Make the folder when it does not exist (the server does; the account tools do not). */
  create?: boolean;
  /** The owner of `primary` when the store creates it (`''`, the default: no account; everyone reads it, admins change it). */
  primaryOwner?: string;
  /** Tuning of the timeline store (tests run it with its caches and shortcuts off). */
  timelineOptions?: TimelineStoreOptions;
}

export function openStorage(options: StorageOptions): Promise<Storage> {
  return openLevelStorage(options);
}
