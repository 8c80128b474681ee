import { lastOpOnEachKey, type OrderedKeyValueStore, type WriteOp } from './ordered-kv.ts';

/** A committed change as other nodes replay it: its LSN and the note its writer left. */
export interface Commit {
  lsn: number;
  note: Uint8Array;
}

/**
 * Where the log stands: the newest commit's LSN, in the numbering `epoch` names. A database made again, or
 * restored into new tables, numbers its commits afresh under another epoch.
 */
export interface LogHead {
  lsn: number;
  epoch: string;
}

/** What a commit writes: its batch, the note that tells other nodes what changed, and the caller's result. */
export interface CommitBatch<T> {
  ops: WriteOp[];
  note: Uint8Array;
  result: T;
}

/**
 * How the timeline store's changes are numbered and ordered. Each change is one atomic, durable batch under
 * a new LSN. Where several nodes share the store (`shared`), commits run one at a time across all of them,
 * in LSN order, and each leaves a note that the others replay (`since`) before they next read or write.
 */
export interface CommitLog {
  readonly shared: boolean;
  /** Makes the next LSN greater than `lsn` (the highest LSN the stored data uses). */
  start(lsn: number): Promise<void>;
  /** The newest commit. */
  head(): Promise<LogHead>;
  /** Commits after `lsn`, oldest first; undefined when some of them are no longer kept (replay is impossible). */
  since(lsn: number): Promise<Commit[] | undefined>;
  /**
   * Runs `build` and commits what it returns; nothing is written if it throws. `build` calls `lsn()` for
   * the commit's LSN, as late as it can: LSNs order commits in time. On a shared log, `head` is the newest
   * commit already made (memory must catch up to it before building). `queued` is called once the batch
   * has its place in the commit order, before it is durable: a write that builds on this one may start.
   * If a batch fails, so does every batch queued after it that was built before the failure was known.
   */
  commit<T>(build: (lsn: () => number, head: LogHead) => Promise<CommitBatch<T>>, queued?: () => void): Promise<T>;
  /**
   * Held by the node running a bulk load into `level` until `release` (or until that node dies), so that
   * others can tell a running load from an interrupted one.
   */
  holdLoad(level: number): Promise<{ release(): Promise<void> }>;
  /** Whether some node holds `level`'s load. */
  loadHeld(level: number): Promise<boolean>;
}

/** A store only this process writes is never made again under it. */
const LOCAL_EPOCH = 'local';

/** Batches waiting for the next synced write, each with its caller's settlement. */
interface Waiting {
  ops: WriteOp[];
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * The commit log of a store only this process writes: LSNs come from memory and the notes are dropped, since
 * nobody replays them. Commits are not serialised here (the store serialises each timeline's writes itself):
 * an LSN is taken just before its batch is written. Group commit: while one synced write is in flight, the
 * batches that arrive wait and then go together in the next one, so one fsync acknowledges them all; a
 * timeline's next write may build on one that waits (see `queued`), so a busy timeline's writes group too, and
 * a group writes each key once (a busy timeline's record, which each of its writes rewrites).
 */
export class LocalCommitLog implements CommitLog {
  readonly shared = false;
  private allocated = 0;
  private waiting: Waiting[] = [];
  private writing = false;
  /** Failed batches so far: a commit built across a failure may have built on what failed. */
  private failures = 0;

  constructor(private readonly kv: OrderedKeyValueStore) {}

  async start(lsn: number): Promise<void> {
    this.allocated = Math.max(this.allocated, lsn);
  }

  async head(): Promise<LogHead> {
    return { lsn: this.allocated, epoch: LOCAL_EPOCH };
  }

  async since(): Promise<Commit[]> {
    return [];
  }

  async commit<T>(build: (lsn: () => number, head: LogHead) => Promise<CommitBatch<T>>, queued?: () => void): Promise<T> {
    let lsn: number | undefined;
    const failures = this.failures;
    const { ops, result } = await build(() => (lsn ??= ++this.allocated), { lsn: this.allocated, epoch: LOCAL_EPOCH });
    if (this.failures !== failures) throw new Error('an earlier write failed while this one was being prepared; nothing was written');
    const durable = new Promise<void>((resolve, reject) => {
      this.waiting.push({ ops, resolve, reject });
      if (!this.writing) void this.writeGroups();
    });
    queued?.();
    await durable;
    return result;
  }

  /** One synced write per group: everything that waited while the previous write was in flight. */
  private async writeGroups(): Promise<void> {
    this.writing = true;
    while (this.waiting.length > 0) {
      const group = this.waiting;
      this.waiting = [];
      try {
        await this.kv.write(group.length === 1 ? group[0]!.ops : lastOpOnEachKey(group.flatMap((waiting) => waiting.ops)), true);
        for (const waiting of group) waiting.resolve();
      } catch (error) {
        // What waits was built while the failed batch was in flight, perhaps on it: it fails too.
        this.failures += 1;
        const rest = this.waiting;
        this.waiting = [];
        for (const waiting of [...group, ...rest]) waiting.reject(error);
      }
    }
    this.writing = false;
  }

  /** A load found at open is always interrupted: only this process writes the store. */
  async holdLoad(): Promise<{ release(): Promise<void> }> {
    return { release: async () => undefined };
  }

  async loadHeld(): Promise<boolean> {
    return false;
  }
}
