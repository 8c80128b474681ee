import { MeteredCache, stringBytes, type CacheCounts } from './metered-cache.ts';
import type { EventRecord, SearchPage } from './types.ts';

/**
 * Recently served search pages, least recently used out first, within a budget of bytes. Keys carry the
 * read chain's version (see `CopyOnWriteTimelineStore.search`), so a write anywhere in the chain makes the
 * old entries unreachable and they age out; nothing is ever served stale. A page's encodings for the faces
 * (its output object, JSON bytes, protobuf message) hang off the page itself and go when it goes.
 */
export class SearchPageCache {
  private readonly pages: MeteredCache<string, SearchPage>;

  /** Pages larger than `maxPageEvents` are scans, not lookups worth keeping: they are not cached. */
  constructor(
    maxBytes: number,
    private readonly maxPageEvents = 100,
  ) {
    this.pages = new MeteredCache('search_page', maxBytes);
  }

  get(key: string): SearchPage | undefined {
    return this.pages.get(key);
  }

  set(key: string, page: SearchPage): void {
    if (page.events.length > this.maxPageEvents) return;
    this.pages.set(key, page, entryBytes(key, page));
  }

  /** Memory loaded again from the store: what it held may no longer be what the store holds. */
  clear(): void {
    this.pages.clear();
  }

  counts(): CacheCounts {
    return this.pages.counts();
  }
}

/** Object headers and small fields, beyond the strings' own bytes. */
const EVENT_OVERHEAD = 160;

function eventBytes(event: EventRecord): number {
  let bytes = EVENT_OVERHEAD + stringBytes(event.event_id) + stringBytes(event.description) + stringBytes(event.location) + stringBytes(event.time);
  for (const cause of event.causes) bytes += stringBytes(cause);
  for (const change of event.changes ?? []) bytes += EVENT_OVERHEAD / 2 + stringBytes(change.action) + stringBytes(change.time);
  return bytes;
}

/**
 * What keeping a page costs, measured (bench/cache-memory.ts): its key and the cache's own bookkeeping, about
 * 2 KiB a page even with no events; the page's events (shared with the version cache); and what the faces
 * keep with a page served again, an output object and its encoded reply, about the events' size once more.
 */
const ENTRY_OVERHEAD = 2048;
const FACE_COPIES = 1;

export function entryBytes(key: string, page: SearchPage): number {
  return ENTRY_OVERHEAD + stringBytes(key) + (1 + FACE_COPIES) * pageBytes(page);
}

export function pageBytes(page: SearchPage): number {
  let bytes = 64 + (page.nextCursor ? stringBytes(page.nextCursor) : 0);
  for (const event of page.events) bytes += eventBytes(event);
  return bytes;
}
