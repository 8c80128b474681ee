import type { SearchPage } from './types.ts';

/**
 * Recently served search pages, least recently used out first, within a budget of events held (an empty
 * page counts as one, so pages that found nothing cannot pile up). Keys carry the read chain's version
 * (see `LevelTimelineStore.search`), so a write anywhere in the chain makes the old entries unreachable
 * and they age out; nothing is ever served stale.
 */
export class SearchPageCache {
  private readonly pages = new Map<string, SearchPage>();
  private held = 0;

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
    const weight = weightOf(page);
    if (this.maxEvents <= 0 || page.events.length > this.maxPageEvents || weight > this.maxEvents) return;
    const previous = this.pages.get(key);
    if (previous) {
      this.pages.delete(key);
      this.held -= weightOf(previous);
    }
    this.pages.set(key, page);
    this.held += weight;
    for (const [oldest, evicted] of this.pages) {
      if (this.held <= this.maxEvents) break;
      this.pages.delete(oldest);
      this.held -= weightOf(evicted);
    }
  }

  get size(): number {
    return this.pages.size;
  }
}

const weightOf = (page: SearchPage): number => Math.max(1, page.events.length);
