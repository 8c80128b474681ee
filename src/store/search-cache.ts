import type { SearchPage } from './types.ts';

/**
 * Recently served search pages, least recently used out first, bounded by the events they hold. Keys
 * carry the read chain's version (see `LevelTimelineStore.chainVersion`), so a write anywhere in the
 * chain makes the old entries unreachable and they age out; nothing is ever served stale.
 */
export class SearchPageCache {
  private readonly pages = new Map<string, SearchPage>();
  private heldEvents = 0;

  /** Pages larger than `maxPageEvents` are scans, not lookups worth keeping: they are not cached. */
  constructor(
    private readonly maxEvents: number,
    private readonly maxPageEvents = 100,
  ) {}

  get(key: string): SearchPage | undefined {
    const page = this.pages.get(key);
    if (page) {
      this.pages.delete(key);
      this.pages.set(key, page);
    }
    return page;
  }

  set(key: string, page: SearchPage): void {
    if (page.events.length > Math.min(this.maxEvents, this.maxPageEvents)) return;
    const previous = this.pages.get(key);
    if (previous) {
      this.pages.delete(key);
      this.heldEvents -= previous.events.length;
    }
    this.pages.set(key, page);
    this.heldEvents += page.events.length;
    for (const [oldest, evicted] of this.pages) {
      if (this.heldEvents <= this.maxEvents) break;
      this.pages.delete(oldest);
      this.heldEvents -= evicted.events.length;
    }
  }

  get size(): number {
    return this.pages.size;
  }
}
