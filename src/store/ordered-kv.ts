/**
 * What the timeline store needs of a backend: binary keys in byte order, atomic batches, and range reads that
 * see one consistent state. LevelDB and PostgreSQL each implement it (src/store/<backend>/).
 */
export type WriteOp = { type: 'put'; key: Uint8Array; value: Uint8Array } | { type: 'del'; key: Uint8Array };
export type PutOp = Extract<WriteOp, { type: 'put' }>;

/**
 * The batch with only the last op on each key: it leaves the store as `ops` would, with less to write. A group
 * commit needs it where several commits rewrite one record (a busy timeline's record, once per write).
 */
export function lastOpOnEachKey(ops: readonly WriteOp[]): WriteOp[] {
  const last = new Map<string, WriteOp>();
  for (const op of ops) last.set(Buffer.from(op.key.buffer, op.key.byteOffset, op.key.byteLength).toString('latin1'), op);
  return [...last.values()];
}

export interface KeyRange {
  gt?: Uint8Array;
  gte?: Uint8Array;
  lt?: Uint8Array;
  limit?: number;
}

/** Entries of a range in key order, a chunk at a time. */
export interface EntryReader {
  next(count: number): Promise<[Uint8Array, Uint8Array][]>;
  close(): Promise<void>;
}

/** Reads that all see the store as it stood when the snapshot began, whatever is written meanwhile. */
export interface SnapshotReads {
  reader(range: KeyRange): EntryReader;
}

export interface OrderedKeyValueStore {
  open(): Promise<void>;
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  getMany(keys: Uint8Array[]): Promise<(Uint8Array | undefined)[]>;
  /** All of `ops` or none, in order (a later op on the same key wins); `durable`: on disk before it resolves. */
  write(ops: WriteOp[], durable: boolean): Promise<void>;
  /**
   * A bulk load's batch: puts of mostly new keys, all or none, not durable. Where absent, the store uses
   * `write`; a backend with a faster path for many new rows (PostgreSQL's COPY) provides it.
   */
  writeBulk?(puts: PutOp[]): Promise<void>;
  keys(range: KeyRange): Promise<Uint8Array[]>;
  entries(range: KeyRange): Promise<[Uint8Array, Uint8Array][]>;
  /** Runs `work` with readers on one consistent snapshot; they are closed when it settles. */
  snapshot<T>(work: (reads: SnapshotReads) => Promise<T>): Promise<T>;
  clear(range: KeyRange): Promise<void>;
  /** Gives the space of deleted entries in [start, end) back, where the backend needs telling. */
  compact(start: Uint8Array, end: Uint8Array): Promise<void>;
}
