import type { AbstractLevel, AbstractSnapshot, AbstractSublevel } from 'abstract-level';
import type { SavedRequestRecord } from '../../saved-requests/records.ts';
import type { SavedRequestStore } from '../../saved-requests/saved-request-store.ts';

type Format = string | Buffer | Uint8Array;
type Stored = SavedRequestRecord | { owner: string; id: string };
type Sublevel = AbstractSublevel<AbstractLevel<Format, unknown, unknown>, Format, string, Stored>;

/** The app's root LevelDB: saved requests live in their own sublevel. */
export interface RootDb {
  sublevel(name: string, options: { valueEncoding: 'json' }): unknown;
}

export const SUBLEVEL_NAME = 'c';
// `sync` is classic-level's option; sublevels pass it through.
const DURABLE = { sync: true } as Record<string, unknown>;

// `r:<owner>\x00<id>` (one owner's records are one range; `\x00` cannot occur in a username) and `s:<token>`.
const recordKey = (owner: string, id: string) => `r:${owner}\x00${id}`;
const shareKey = (token: string) => `s:${token}`;

type Operation = { type: 'put'; key: string; value: Stored } | { type: 'del'; key: string };

/** Saved requests in a sublevel of the service's LevelDB; every write is one synced batch. */
export class LevelSavedRequestStore implements SavedRequestStore {
  private constructor(private readonly sub: Sublevel) {}

  static async open(db: RootDb): Promise<LevelSavedRequestStore> {
    const sub = db.sublevel(SUBLEVEL_NAME, { valueEncoding: 'json' }) as Sublevel;
    await sub.open();
    return new LevelSavedRequestStore(sub);
  }

  put(record: SavedRequestRecord, previousShareToken?: string): Promise<void> {
    const operations: Operation[] = [{ type: 'put', key: recordKey(record.owner, record.id), value: record }];
    if (previousShareToken && previousShareToken !== record.share_token) operations.push({ type: 'del', key: shareKey(previousShareToken) });
    if (record.share_token) operations.push({ type: 'put', key: shareKey(record.share_token), value: { owner: record.owner, id: record.id } });
    return this.sub.batch(operations, DURABLE);
  }

  async get(owner: string, id: string): Promise<SavedRequestRecord | undefined> {
    return (await this.sub.get(recordKey(owner, id))) as SavedRequestRecord | undefined;
  }

  async findByShareToken(token: string): Promise<SavedRequestRecord | undefined> {
    const link = (await this.sub.get(shareKey(token))) as { owner: string; id: string } | undefined;
    if (!link) return undefined;
    const record = await this.get(link.owner, link.id);
    return record?.share_token === token ? record : undefined;
  }

  async list(owner: string, { after, limit }: { after?: string; limit: number }): Promise<SavedRequestRecord[]> {
    const records: SavedRequestRecord[] = [];
    const range = after === undefined ? { lte: recordKey(owner, '\uffff') } : { lt: recordKey(owner, after) };
    for await (const value of this.sub.values({ gt: recordKey(owner, ''), ...range, reverse: true, limit })) {
      records.push(value as SavedRequestRecord);
    }
    return records;
  }

  /** `snapshot`: read as the root database stood when it was taken (`tms backup`). */
  async *all(snapshot?: AbstractSnapshot): AsyncIterable<SavedRequestRecord> {
    for await (const value of this.sub.values({ gte: 'r:', lt: 'r;', ...(snapshot && { snapshot }) })) yield value as SavedRequestRecord;
  }

  async count(owner: string): Promise<number> {
    let count = 0;
    for await (const _key of this.sub.keys({ gt: recordKey(owner, ''), lte: recordKey(owner, '\uffff') })) count++;
    return count;
  }

  delete(record: SavedRequestRecord): Promise<void> {
    const operations: Operation[] = [{ type: 'del', key: recordKey(record.owner, record.id) }];
    if (record.share_token) operations.push({ type: 'del', key: shareKey(record.share_token) });
    return this.sub.batch(operations, DURABLE);
  }
}
