import type { SearchPage } from './types.ts';

interface Entry {
  page: SearchPage;
  /** The value of `moves` when the entry last went to the back of the order. */
  movedAt: number;
}

/**
 * Recently served search pages, least recently used out first (nearly: see `get`), within a budget of
 * events held (an empty page counts as one, so pages that found nothing cannot pile up). Keys carry the
 * read chain's version (see `LevelTimelineStore.search`), so a write anywhere in the chain makes the old
 * entries unreachable and they age out; nothing is ever served stale.
 */
export class SearchPageCache {
  /** In recency order, least recent first. */
  private readonly entries = new Map<string, Entry>();
  private held = 0;
  private moves = 0;

  /** Pages larger than `maxPageEvents` are scans, not lookups worth keeping: they are not cached. */
  constructor(
    private readonly maxEvents: number,
    private readonly maxPageEvents = 100,
  ) {}

  get(key: string): SearchPage | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Re-inserting on every hit would churn the Map (and the garbage collector) for nothing. Fewer than
    // size/2 moves since this entry's own mean it is still in the newer half, far from eviction: it stays.
    if (this.moves - entry.movedAt >= this.entries.size / 2) {
      this.entries.delete(key);
      entry.movedAt = ++this.moves;
      this.entries.set(key, entry);
    }
    return entry.page;
  }

  set(key: string, page: SearchPage): void {
    const weight = weightOf(page);
    if (this.maxEvents <= 0 || page.events.length > this.maxPageEvents || weight > this.maxEvents) return;
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.held -= weightOf(previous.page);
    }
    this.entries.set(key, { page, movedAt: ++this.moves });
    this.held += weight;
    for (const [oldest, evicted] of this.entries) {
      if (this.held <= this.maxEvents) break;
      this.entries.delete(oldest);
      this.held -= weightOf(evicted.page);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

const weightOf = (page: SearchPage): number => Math.max(1, page.events.length);
