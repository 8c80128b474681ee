import type { AbstractBatchOptions, AbstractLevel, AbstractSnapshot, AbstractSublevel } from 'abstract-level';
import type { EntryReader, KeyRange, OrderedKeyValueStore, SnapshotReads, WriteOp } from '../ordered-kv.ts';

type Sublevel = AbstractSublevel<AbstractLevel<string | Buffer | Uint8Array, unknown, unknown>, string | Buffer | Uint8Array, Uint8Array, Uint8Array>;

/** The root LevelDB (`new Level(dir, ...)`); the store keeps to its own sublevel. */
export interface RootDatabase {
  sublevel(name: string, options: { keyEncoding: 'view'; valueEncoding: 'view' }): unknown;
  compactRange?(start: Uint8Array, end: Uint8Array, options: { keyEncoding: 'view' }): Promise<void>;
}

/**
 * `sync` is classic-level's option (fsync before acknowledging); abstract-level's types do not list it. It is
 * inherited, not the object's own: abstract-level copies a batch's own options into every operation, twice
 * through a sublevel, and in the server that copy cost 3 µs an operation (docs/performance.md). classic-level
 * reads `sync` with a property lookup, which finds an inherited one.
 */
const SYNC: AbstractBatchOptions<Uint8Array, Uint8Array> & { sync: boolean } = Object.freeze(Object.create(Object.freeze({ sync: true })) as { sync: boolean });

/** Binary keys and values in one sublevel of the shared database: the only LevelDB surface the store uses. */
export class KeyValueSpace implements OrderedKeyValueStore {
  private readonly sub: Sublevel;

  constructor(
    private readonly root: RootDatabase,
    name: string,
  ) {
    this.sub = root.sublevel(name, { keyEncoding: 'view', valueEncoding: 'view' }) as Sublevel;
  }

  open(): Promise<void> {
    return this.sub.open();
  }

  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return this.sub.get(key);
  }

  getMany(keys: Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    return keys.length === 0 ? Promise.resolve([]) : this.sub.getMany(keys);
  }

  write(ops: WriteOp[], sync: boolean): Promise<void> {
    return sync ? this.sub.batch(ops, SYNC) : this.sub.batch(ops);
  }

  /** `snapshot`: an explicit snapshot of the root database (see `openLevelStorage`'s `snapshotAll`). */
  reader(range: KeyRange, snapshot?: AbstractSnapshot): EntryReader {
    const iterator = this.sub.iterator({ ...range, keys: true, values: true, ...(snapshot && { snapshot }) });
    return {
      next: (count) => iterator.nextv(count),
      close: () => iterator.close(),
    };
  }

  /** How many entries the sublevel holds in `snapshot`, reading keys only. */
  async countKeys(snapshot?: AbstractSnapshot): Promise<number> {
    const iterator = this.sub.keys(snapshot ? { snapshot } : {});
    let count = 0;
    try {
      for (let chunk = await iterator.nextv(1000); chunk.length > 0; chunk = await iterator.nextv(1000)) count += chunk.length;
    } finally {
      await iterator.close();
    }
    return count;
  }

  /** Each LevelDB iterator reads from the snapshot taken when it was made, which is all a search needs. */
  snapshot<T>(work: (reads: SnapshotReads) => Promise<T>): Promise<T> {
    return work({ reader: (range) => this.reader(range) });
  }

  async keys(range: KeyRange): Promise<Uint8Array[]> {
    return this.sub.keys(range).all();
  }

  async entries(range: KeyRange): Promise<[Uint8Array, Uint8Array][]> {
    return this.sub.iterator(range).all();
  }

  clear(range: KeyRange): Promise<void> {
    return this.sub.clear(range);
  }

  /** Asks LevelDB to rewrite the range now, so deleted entries give their disk space back. */
  async compact(start: Uint8Array, end: Uint8Array): Promise<void> {
    if (!this.root.compactRange) return;
    await this.root.compactRange(this.sub.prefixKey(start, 'view', false), this.sub.prefixKey(end, 'view', false), {
      keyEncoding: 'view',
    });
  }
}
