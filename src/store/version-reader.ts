/**
 * Reads event versions by (level, event id, LSN). A version never changes once written, so the records read
 * are kept, decoded and frozen, in a cache bounded in bytes: searches and lookups of recently seen events
 * then touch neither the store nor JSON.parse.
 */
import { decodeRecord } from './event-codec.ts';
import { Tag, versionKey } from './keys.ts';
import { MeteredCache, type CacheCounts } from './metered-cache.ts';
import type { OrderedKeyValueStore } from './ordered-kv.ts';
import type { EventRecord } from './types.ts';

export interface VersionRef {
  level: number;
  eventId: string;
  lsn: number;
}

/** 64 MiB: about 150 000 records of a typical size. */
const DEFAULT_BYTES = 64 * 1024 * 1024;
/** The decoded object's overhead beyond its JSON text (twice over: V8 strings of one-byte text, plus headers). */
const RECORD_OVERHEAD = 200;

/** Records are shared by every reader: nobody may change them. */
export function freezeRecord(record: EventRecord): EventRecord {
  Object.freeze(record.causes);
  if (record.changes) for (const change of Object.freeze(record.changes)) Object.freeze(change);
  return Object.freeze(record);
}

/** One version's key in memory: in this cache, and among the versions written but not yet durable. */
export const versionRefKey = ({ level, eventId, lsn }: VersionRef): string => `${level}/${lsn}/${eventId}`;

export class VersionReader {
  private readonly cache: MeteredCache<string, EventRecord>;
  /** Moves whenever kept versions are dropped: a read that began before must not keep what it read. */
  private generation = 0;
  private soon: { ref: VersionRef; resolve(record: EventRecord | undefined): void; reject(error: unknown): void }[] = [];

  constructor(
    private readonly kv: OrderedKeyValueStore,
    private readonly maxBytes = DEFAULT_BYTES,
  ) {
    this.cache = new MeteredCache('event_version', maxBytes);
  }

  /** Whether records read are kept (a budget of 0 keeps none). */
  get caching(): boolean {
    return this.maxBytes > 0;
  }

  /** The versions, in order; undefined where the store has none. */
  read(refs: readonly VersionRef[]): Promise<(EventRecord | undefined)[]> {
    const found = this.lookUp(refs);
    return found.includes(undefined) ? this.fill(refs, found) : Promise.resolve(found);
  }

  /**
   * Reads one version like `read`, joined with the other reads asked for in the same turn of the event loop into
   * one read of the store. For reads that may wait a moment: each read of the store takes LevelDB's lock on the
   * request thread (for its snapshot), where a joined read takes it once.
   */
  readSoon(ref: VersionRef): Promise<EventRecord | undefined> {
    const cached = this.cache.get(versionRefKey(ref));
    if (cached) return Promise.resolve(cached);
    return new Promise((resolve, reject) => {
      this.soon.push({ ref, resolve, reject });
      if (this.soon.length === 1) setImmediate(() => this.readJoined());
    });
  }

  private readJoined(): void {
    const joined = this.soon;
    this.soon = [];
    this.fill(
      joined.map(({ ref }) => ref),
      joined.map(() => undefined),
    ).then(
      (records) => joined.forEach(({ resolve }, i) => resolve(records[i])),
      (error: unknown) => joined.forEach(({ reject }) => reject(error)),
    );
  }

  private lookUp(refs: readonly VersionRef[]): (EventRecord | undefined)[] {
    return refs.map((ref) => this.cache.get(versionRefKey(ref)));
  }

  /** Reads from the store what `found` lacks. */
  private async fill(refs: readonly VersionRef[], found: (EventRecord | undefined)[]): Promise<(EventRecord | undefined)[]> {
    const missing = refs.flatMap((ref, i) => (found[i] ? [] : [i]));
    const keys = missing.map((i) => versionKey(Tag.version, refs[i]!.level, refs[i]!.eventId, refs[i]!.lsn));
    const generation = this.generation;
    // One key: a plain get costs a third of a getMany of one.
    const bytes = keys.length === 1 ? [await this.kv.get(keys[0]!)] : await this.kv.getMany(keys);
    missing.forEach((at, i) => {
      const value = bytes[i];
      if (!value) return;
      // Dropped while the read ran (a genesis load rewrote the level, or the store was made again): not kept.
      found[at] = generation === this.generation ? this.keep(refs[at]!, value) : freezeRecord(decodeRecord(value));
    });
    return found;
  }

  /** A version's record as read from the store elsewhere (an index entry carries it), kept like one read here. */
  keep(ref: VersionRef, bytes: Uint8Array): EventRecord {
    const record = freezeRecord(decodeRecord(bytes));
    this.cache.set(versionRefKey(ref), record, bytes.byteLength * 2 + RECORD_OVERHEAD);
    return record;
  }

  /** A bulk load may rewrite a level's genesis versions; a deleted level's versions are of no more use. */
  forgetLevel(level: number): void {
    this.generation += 1;
    const prefix = `${level}/`;
    this.cache.deleteIf((key) => key.startsWith(prefix));
  }

  /** The store may be another one now (a database made again): the same version may hold another record. */
  clear(): void {
    this.generation += 1;
    this.cache.clear();
  }

  counts(): CacheCounts {
    return this.cache.counts();
  }
}
