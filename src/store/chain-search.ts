/**
 * Search across a read chain, from memory: per level, its versions above genesis (current-index.ts), its
 * genesis events (genesis-index.ts; the store's time index while that is not ready) and, for a capped level, the
 * as-of-cap versions of events changed after the cap, merged in (time, event_id) order. A level's entry is
 * dropped when a closer level has a visible version of the same event (shadowing). Cost is proportional to
 * the page, not to the timeline's size; only the page's records are read from the store.
 */
import { decodeInstantKey, INSTANT_KEY_BYTES } from '../time/index.ts';
import { ChainView } from './chain-view.ts';
import { decodeRecord } from './event-codec.ts';
import { searchPositions, type GenesisIndex, type IndexBound } from './genesis-index.ts';
import { locationWords } from './location-words.ts';
import { prefixEnd, timeIndexPrefix } from './keys.ts';
import { sortText, sortTextBytes } from './current-index.ts';
import type { OrderedKeyValueStore, SnapshotReads } from './ordered-kv.ts';
import { CurrentStream, GenesisStream, ListStream, StoredIndexStream, type Candidate, type Stream } from './search-streams.ts';
import type { ChainLink } from './timeline-registry.ts';
import type { EventRecord } from './types.ts';
import type { VersionReader } from './version-reader.ts';
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
  /** Whether a level holds genesis events. */
  hasGenesis: (level: number) => boolean;
  /** A genesis level's in-memory index, when ready; without it the level's genesis is read from the store's index. */
  genesisIndex: (level: number) => GenesisIndex | undefined;
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
  reader: VersionReader,
  versions: VersionIndex,
  chain: ChainLink[],
  query: ChainQuery,
): Promise<ChainSearchResult> {
  const onStore = chain.some(({ level }) => query.hasGenesis(level) && !query.genesisIndex(level));
  // Entries of the store's index come from one snapshot; the versions candidates point at never change, so they are read after it.
  const picked = onStore
    ? await kv.snapshot((reads) => pickCandidates(reads, versions, chain, query))
    : await pickCandidates(undefined, versions, chain, query);
  const page = picked.slice(0, query.limit);
  const refs = page.map(({ level, eventId, lsn }) => ({ level, eventId, lsn: lsn ?? 0 }));
  const toRead = page.flatMap((candidate, i) => (candidate.json ? [] : [refs[i]!]));
  const read = toRead.length === 0 ? [] : await reader.read(toRead);
  let next = 0;
  const events = page.map((candidate, i) => {
    if (candidate.json) return reader.keep(refs[i]!, candidate.json);
    const record = read[next++];
    if (!record) throw new Error(`store corrupt: version ${candidate.lsn} of event ${candidate.eventId} missing on level ${candidate.level}`);
    return record;
  });
  return picked.length > query.limit ? { events, nextAfter: page[page.length - 1]!.key } : { events };
}

/** An instant key as an index bound; seconds beyond ±2^53 lie past every genesis index entry. */
function indexBound(key: Uint8Array, afterId?: string): IndexBound {
  const { seconds, nanos } = decodeInstantKey(key);
  const asNumber = Number(seconds);
  const exact = Math.abs(asNumber) <= Number.MAX_SAFE_INTEGER ? asNumber : Math.sign(asNumber) * Infinity;
  return afterId === undefined ? { seconds: exact, nanos } : { seconds: exact, nanos, afterId };
}

/** Up to `limit + 1` candidates in (time, id) order, merged from every level of the chain. */
async function pickCandidates(
  reads: SnapshotReads | undefined,
  versions: VersionIndex,
  chain: ChainLink[],
  query: ChainQuery,
): Promise<Candidate[]> {
  const view = new ChainView(versions, chain);
  // The rarest word drives the range read; among equally rare words, the longest is a fair guess.
  const frequency = query.frequency ?? (() => 0);
  const rarer = (a: string, b: string): boolean => frequency(a) < frequency(b) || (frequency(a) === frequency(b) && a.length > b.length);
  const driver = query.words.reduce<string | undefined>((best, word) => (!best || rarer(word, best) ? word : best), undefined);
  const otherWords = query.words.filter((word) => word !== driver);
  const hasOtherWords = (words: readonly string[]): boolean => otherWords.every((word) => words.includes(word));

  const after = query.after && Buffer.from(query.after.buffer, query.after.byteOffset, query.after.byteLength);
  const start = after ? indexBound(after, after.toString('utf8', INSTANT_KEY_BYTES)) : query.startKey && indexBound(query.startKey);
  const end = query.endKey && indexBound(query.endKey);
  const lowestText = after ? after.toString('latin1') : query.startKey ? Buffer.from(query.startKey).toString('latin1') : '';
  const endText = query.endKey && Buffer.from(query.endKey).toString('latin1');

  const streams: Stream[] = [];
  const fromMemory = (link: ChainLink, depth: number, eventIds: Iterable<string>): void => {
    const items: Candidate[] = [];
    for (const eventId of eventIds) {
      const version = visibleVersion(versions.list(link.level, eventId), link.cap);
      // A genesis marker as of the cap: the genesis stream has the event.
      if (!version?.happens || version.lsn === 0) continue;
      const key = sortTextBytes(sortText(version.timeText, eventId));
      if (!inRange(key, query)) continue;
      if (!query.words.every((word) => version.words.includes(word))) continue;
      if (view.hidden(depth, eventId, version)) continue;
      items.push({ key, eventId, level: link.level, lsn: version.lsn });
    }
    if (items.length > 0) streams.push(new ListStream(items.sort((a, b) => Buffer.compare(a.key, b.key))));
  };
  /**
   * Genesis events with versions on their own level up to its cap are that level's versions: only the untouched
   * ones are genesis. A genesis marker (LSN 0) is not a change, and neither is a version above the cap.
   */
  const untouched = (link: ChainLink, depth: number, eventId: string): boolean =>
    (visibleVersion(versions.list(link.level, eventId), link.cap)?.lsn ?? 0) === 0 && !view.shadowed(depth, eventId);

  // Reading the stored index awaits the store, and writes may change memory meanwhile: the index tree is then walked
  // in a copy, and the changes after each cap are taken now. What else reads memory later reads it up to each cap,
  // below every version a write can add or take back meanwhile.
  const stable = reads !== undefined;
  try {
    chain.forEach((link, depth) => {
      const { level, cap } = link;
      const changed = versions.changedAfter(level, cap);
      const current = versions.current(level);
      if (current && current.count() > 0) {
        streams.push(
          new CurrentStream(current.from(driver, lowestText, stable), lowestText, after !== undefined, endText, level, (eventId) => {
            // Changed after the cap: the as-of-cap version comes from `fromMemory` below.
            if (changed.has(eventId)) return undefined;
            const version = visibleVersion(versions.list(level, eventId), cap);
            if (!version || view.hidden(depth, eventId, version) || !hasOtherWords(version.words)) return undefined;
            return version.lsn;
          }),
        );
      }
      fromMemory(link, depth, changed);
      if (!query.hasGenesis(level)) return;

      const index = query.genesisIndex(level);
      if (index) {
        const walk = searchPositions(index, query.words, driver);
        if (!walk) return;
        streams.push(new GenesisStream(index, walk, start, end, level, (eventId) => untouched(link, depth, eventId)));
        return;
      }
      // The time index filtered by words (genesis has no stored word index): only where a level has no in-memory index.
      const prefix = timeIndexPrefix(level);
      const lower = query.after ? { gt: Buffer.concat([prefix, query.after]) } : { gte: query.startKey ? Buffer.concat([prefix, query.startKey]) : prefix };
      const upper = prefixEnd(query.endKey ? Buffer.concat([prefix, query.endKey]) : prefix);
      const accept = (candidate: Candidate): boolean => {
        if (!untouched(link, depth, candidate.eventId)) return false;
        if (query.words.length === 0) return true;
        const words = candidate.words ?? locationWords(decodeRecord(candidate.json!).location);
        return query.words.every((word) => words.includes(word));
      };
      streams.push(new StoredIndexStream(reads!.reader({ ...lower, lt: upper }), prefix.length, level, accept, query.limit + 1));
    });

    const picked: Candidate[] = [];
    while (picked.length <= query.limit) {
      let best: Candidate | undefined;
      let from: Stream | undefined;
      for (const stream of streams) {
        const peeked = stream.peek();
        const head = peeked instanceof Promise ? await peeked : peeked;
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
