/**
 * Search across a read chain: one ordered stream per level (a range read of that level's current index,
 * plus, for a capped level, the as-of-cap versions of events changed after the cap, from memory), merged in
 * (time, event_id) order. A level's entry is dropped when a closer level has a visible version of the same
 * event (shadowing). Cost is proportional to the page, not to the timeline's size.
 */
import { INSTANT_KEY_BYTES } from '../time/index.ts';
import { ChainView } from './chain-view.ts';
import { decodeRecord } from './event-codec.ts';
import { locationWords } from './location-words.ts';
import { prefixEnd, sortKey, Tag, timeIndexPrefix, versionKey, wordIndexPrefix } from './keys.ts';
import type { EntryReader, OrderedKeyValueStore, SnapshotReads } from './ordered-kv.ts';
import type { ChainLink } from './timeline-registry.ts';
import type { EventRecord } from './types.ts';
import { visibleVersion, type VersionIndex } from './version-index.ts';

export interface ChainQuery {
  /** Normalised, de-duplicated. */
  words: string[];
  startKey?: Uint8Array;
  endKey?: Uint8Array;
  /** Sort key of the last event of the previous page. */
  after?: Uint8Array;
  /** Events wanted; one more is read to learn whether another page exists. */
  limit: number;
  /** Estimated events per word (0: rare); the rarest word drives the range read. */
  frequency?: (word: string) => number;
  /**
   * Levels whose every version is summarised in memory (no genesis data) and few enough to scan: merged
   * from memory, which costs less than opening an iterator on them.
   */
  inMemory?: (level: number) => boolean;
  /** Called with the newest commit's LSN as the index snapshot sees it, before the snapshot is read (shared stores). */
  beforeScan?: (head: number) => Promise<void> | undefined;
}

interface Candidate {
  key: Buffer;
  eventId: string;
  level: number;
  /** Index entries carry the record; extras are read by version. */
  json?: Uint8Array;
  /** Decoded once, if a filter needed it. */
  record?: EventRecord;
  lsn?: number;
}

interface Stream {
  peek(): Promise<Candidate | undefined>;
  take(): void;
  close(): Promise<void>;
}

const MAX_CHUNK = 1024;

class IndexStream implements Stream {
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
      const [rawKey, json] = this.buffer[this.position++]!;
      const keyBytes = Buffer.from(rawKey.buffer, rawKey.byteOffset, rawKey.byteLength);
      const key = keyBytes.subarray(this.keyOffset);
      const candidate: Candidate = {
        key,
        eventId: key.toString('utf8', INSTANT_KEY_BYTES),
        level: this.level,
        json,
      };
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

class ListStream implements Stream {
  private position = 0;
  constructor(private readonly items: Candidate[]) {}
  async peek(): Promise<Candidate | undefined> {
    return this.items[this.position];
  }
  take(): void {
    this.position += 1;
  }
  async close(): Promise<void> {}
}

function inRange(key: Uint8Array, query: ChainQuery): boolean {
  const time = key.subarray(0, INSTANT_KEY_BYTES);
  if (query.startKey && Buffer.compare(time, query.startKey) < 0) return false;
  if (query.endKey && Buffer.compare(time, query.endKey) > 0) return false;
  return !query.after || Buffer.compare(key, query.after) > 0;
}

export interface ChainSearchResult {
  events: EventRecord[];
  /** Sort key of the last event returned, when more follow. */
  nextAfter?: Uint8Array;
}

export async function searchChain(
  kv: OrderedKeyValueStore,
  versions: VersionIndex,
  chain: ChainLink[],
  query: ChainQuery,
): Promise<ChainSearchResult> {
  // Index entries come from one snapshot; the versions they point at never change, so they are read after it.
  const picked = await kv.snapshot(async (reads) => {
    if (query.beforeScan && reads.commitHead) await query.beforeScan(await reads.commitHead());
    return pickCandidates(reads, versions, chain, query);
  });
  const page = picked.slice(0, query.limit);
  const toRead = page.filter((candidate) => !candidate.json);
  const read = await kv.getMany(toRead.map((c) => versionKey(Tag.version, c.level, c.eventId, c.lsn!)));
  toRead.forEach((candidate, i) => {
    const bytes = read[i];
    if (!bytes) throw new Error(`store corrupt: version ${candidate.lsn} of event ${candidate.eventId} missing on level ${candidate.level}`);
    candidate.json = bytes;
  });
  const events = page.map((candidate) => candidate.record ?? decodeRecord(candidate.json!));
  return picked.length > query.limit ? { events, nextAfter: page[page.length - 1]!.key } : { events };
}

/** Up to `limit + 1` candidates in (time, id) order, merged from every level of the chain. */
async function pickCandidates(reads: SnapshotReads, versions: VersionIndex, chain: ChainLink[], query: ChainQuery): Promise<Candidate[]> {
  const view = new ChainView(versions, chain);
  // The rarest word drives the range read; among equally rare words, the longest is a fair guess.
  const frequency = query.frequency ?? (() => 0);
  const rarer = (a: string, b: string): boolean => frequency(a) < frequency(b) || (frequency(a) === frequency(b) && a.length > b.length);
  const driver = query.words.reduce<string | undefined>((best, word) => (!best || rarer(word, best) ? word : best), undefined);
  const otherWords = query.words.filter((word) => word !== driver);

  const streams: Stream[] = [];
  const fromMemory = (link: ChainLink, depth: number, eventIds: Iterable<string>): void => {
    const items: Candidate[] = [];
    for (const eventId of eventIds) {
      const version = visibleVersion(versions.list(link.level, eventId), link.cap);
      if (!version?.happens) continue;
      const key = sortKey(version.timeKey, eventId);
      if (!inRange(key, query)) continue;
      if (!query.words.every((word) => version.words.includes(word))) continue;
      if (view.hidden(depth, eventId, version)) continue;
      items.push({ key, eventId, level: link.level, lsn: version.lsn });
    }
    if (items.length > 0) streams.push(new ListStream(items.sort((a, b) => Buffer.compare(a.key, b.key))));
  };
  try {
    chain.forEach((link, depth) => {
      if (query.inMemory?.(link.level)) {
        fromMemory(link, depth, versions.eventIds(link.level) ?? []);
        return;
      }
      const prefix = driver === undefined ? timeIndexPrefix(link.level) : wordIndexPrefix(link.level, driver);
      const lower = query.after ? { gt: Buffer.concat([prefix, query.after]) } : { gte: query.startKey ? Buffer.concat([prefix, query.startKey]) : prefix };
      const upper = prefixEnd(query.endKey ? Buffer.concat([prefix, query.endKey]) : prefix);
      // Versions registered later than this are not in the iterator's snapshot (written after it was opened).
      const registered = versions.newestLsn(link.level);
      const accept = (candidate: Candidate): boolean => {
        const list = versions.list(link.level, candidate.eventId);
        // Changed after the cap: the index may show a newer version; the as-of-cap one comes from memory below.
        if (list && (visibleVersion(list, registered)?.lsn ?? 0) > link.cap) return false;
        if (view.hidden(depth, candidate.eventId, visibleVersion(list, link.cap))) return false;
        if (otherWords.length > 0) {
          const record = decodeRecord(candidate.json!);
          candidate.record = record;
          const words = locationWords(record.location);
          if (!otherWords.every((word) => words.includes(word))) return false;
        }
        return true;
      };
      streams.push(new IndexStream(reads.reader({ ...lower, lt: upper }), prefix.length, link.level, accept, query.limit + 1));

      // Events changed after the cap: their as-of-cap versions, from memory.
      fromMemory(link, depth, versions.changedAfter(link.level, link.cap));
    });

    const picked: Candidate[] = [];
    while (picked.length <= query.limit) {
      let best: Candidate | undefined;
      let from: Stream | undefined;
      for (const stream of streams) {
        const head = await stream.peek();
        if (head && (!best || Buffer.compare(head.key, best.key) < 0)) {
          best = head;
          from = stream;
        }
      }
      if (!best || !from) break;
      from.take();
      picked.push(best);
    }
    return picked;
  } finally {
    await Promise.all(streams.map((stream) => stream.close()));
  }
}
