/**
 * The ordered streams a chain search merges, one or more per level of the chain: the level's versions above
 * genesis (in memory), its genesis events (in memory once indexed, else from the store's index), and the
 * as-of-cap versions of events changed after the level's cap (in memory). Each yields candidates in
 * (time, event id) order; `accept` drops those the chain does not see.
 */
import { INSTANT_KEY_BYTES } from '../time/index.ts';
import { sortTextBytes, timeText } from './current-index.ts';
import type { EntryReader } from './ordered-kv.ts';
import { decodeTimeEntry } from './genesis-time-entry.ts';
import { firstInRange, pastEnd, type GenesisIndex, type IndexBound, type PlaceFilter, type SearchPositions } from './genesis-index.ts';
import { sortKeyAt } from './keys.ts';

export interface Candidate {
  key: Buffer;
  eventId: string;
  level: number;
  /** Entries of the store's index written before it held words carry the record; others are read by version. */
  json?: Uint8Array;
  /** The location words, where the store's index holds them. */
  words?: string[];
  lsn?: number;
}

export interface Stream {
  /** The next candidate (a promise only where the stream reads the store). */
  peek(): Candidate | undefined | Promise<Candidate | undefined>;
  take(): void;
  close(): Promise<void>;
}

const MAX_CHUNK = 1024;

/** A range of the store's time index of one level: its genesis events, while their in-memory index is not ready. */
export class StoredIndexStream implements Stream {
  private buffer: [Uint8Array, Uint8Array][] = [];
  private position = 0;
  private done = false;
  private chunk: number;
  private head: Candidate | undefined;

  constructor(
    private readonly reader: EntryReader,
    private readonly keyOffset: number,
    private readonly level: number,
    private readonly accept: (candidate: Candidate) => boolean,
    firstChunk: number,
  ) {
    this.chunk = firstChunk;
  }

  async peek(): Promise<Candidate | undefined> {
    while (!this.head) {
      if (this.position >= this.buffer.length) {
        if (this.done) return undefined;
        // nextv may return fewer entries than asked (byte limits); only an empty array means the end.
        this.buffer = await this.reader.next(this.chunk);
        this.position = 0;
        if (this.buffer.length === 0) this.done = true;
        this.chunk = Math.min(MAX_CHUNK, this.chunk * 2);
        continue;
      }
      const [rawKey, value] = this.buffer[this.position++]!;
      const keyBytes = Buffer.from(rawKey.buffer, rawKey.byteOffset, rawKey.byteLength);
      const key = keyBytes.subarray(this.keyOffset);
      const candidate: Candidate = { key, eventId: key.toString('utf8', INSTANT_KEY_BYTES), level: this.level, ...decodeTimeEntry(value) };
      if (this.accept(candidate)) this.head = candidate;
    }
    return this.head;
  }

  take(): void {
    this.head = undefined;
  }

  close(): Promise<void> {
    return this.reader.close();
  }
}

/** Genesis events of one level from its in-memory index, the positions a search walks (searchPositions). */
export class GenesisStream implements Stream {
  private readonly positions: Int32Array | undefined;
  private readonly places: PlaceFilter | undefined;
  private at: number;
  private head: Candidate | undefined;

  constructor(
    private readonly index: GenesisIndex,
    walk: SearchPositions,
    start: IndexBound | undefined,
    private readonly end: IndexBound | undefined,
    private readonly level: number,
    private readonly accept: (eventId: string) => boolean,
  ) {
    this.positions = walk.positions;
    this.places = walk.places;
    this.at = firstInRange(index, walk.positions, start);
  }

  peek(): Candidate | undefined {
    const { index, positions, places } = this;
    const length = positions ? positions.length : index.ids.length;
    while (!this.head && this.at < length) {
      const position = positions ? positions[this.at]! : this.at;
      if (this.end && pastEnd(index, position, this.end)) {
        this.at = length;
        break;
      }
      this.at += 1;
      if (places && !places.has(index.place[position]!)) continue;
      const eventId = index.ids[position]!;
      if (!this.accept(eventId)) continue;
      this.head = new GenesisCandidate(index, position, eventId, this.level);
    }
    return this.head;
  }

  take(): void {
    this.head = undefined;
  }

  async close(): Promise<void> {}
}

/**
 * A genesis event as a candidate. Its sort key is made when first asked for: a search merging one stream never
 * compares keys, and needs only the last picked event's (for the page token).
 */
class GenesisCandidate implements Candidate {
  readonly lsn = 0;
  #key: Buffer | undefined;

  constructor(
    private readonly index: GenesisIndex,
    private readonly position: number,
    readonly eventId: string,
    readonly level: number,
  ) {}

  get key(): Buffer {
    return (this.#key ??= sortKeyAt(this.index.seconds[this.position]!, this.index.nanos[this.position]!, this.eventId));
  }
}

/** One level's versions above genesis as of its cap, from its in-memory index (the caller's filter picks the version). */
export class CurrentStream implements Stream {
  private head: Candidate | undefined;
  private done = false;

  /** `entries`: the index from `lowest` (sort-key text) on; `strict`: an entry equal to `lowest` is left out. */
  constructor(
    private readonly entries: IterableIterator<[string, string]>,
    private readonly lowest: string,
    private readonly strict: boolean,
    private readonly endTime: string | undefined,
    private readonly level: number,
    private readonly accept: (eventId: string) => number | undefined,
  ) {}

  peek(): Candidate | undefined {
    while (!this.head && !this.done) {
      const next = this.entries.next();
      if (next.done) {
        this.done = true;
        break;
      }
      const [key, eventId] = next.value;
      if (this.strict && key === this.lowest) continue;
      if (this.endTime !== undefined && timeText(key) > this.endTime) {
        this.done = true;
        break;
      }
      const lsn = this.accept(eventId);
      if (lsn !== undefined) this.head = { key: sortTextBytes(key), eventId, level: this.level, lsn };
    }
    return this.head;
  }

  take(): void {
    this.head = undefined;
  }

  async close(): Promise<void> {}
}

/** Candidates picked from memory and sorted up front (few: versions changed after a cap). */
export class ListStream implements Stream {
  private position = 0;
  constructor(private readonly items: Candidate[]) {}
  peek(): Candidate | undefined {
    return this.items[this.position];
  }
  take(): void {
    this.position += 1;
  }
  async close(): Promise<void> {}
}
