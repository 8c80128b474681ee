import type { SavedRequestRecord } from './records.ts';

/**
 * Where saved console requests live: one owner's records are one range, newest first, and a share token
 * finds its record. Implementations make each call atomic and durable before it resolves.
 */
export interface SavedRequestStore {
  /** Writes a record (new or changed); `previousShareToken` is unlinked in the same write. */
  put(record: SavedRequestRecord, previousShareToken?: string): Promise<void>;
  get(owner: string, id: string): Promise<SavedRequestRecord | undefined>;
  findByShareToken(token: string): Promise<SavedRequestRecord | undefined>;
  /** An owner's records, newest first, starting after the record `after` (an id) when given. */
  list(owner: string, options: { after?: string; limit: number }): Promise<SavedRequestRecord[]>;
  count(owner: string): Promise<number>;
  /** Every owner's records, by owner then id (for copying a whole store). */
  all(): AsyncIterable<SavedRequestRecord>;
  delete(record: SavedRequestRecord): Promise<void>;
}
