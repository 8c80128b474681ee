/**
 * The causal graphs kept up to date, one per timeline, within a budget of bytes. A read takes the timeline's
 * entry and brings it up to date (or builds it anew); reads of one timeline run one after the other, each
 * on the entry the one before left, so concurrent reads share one build and no update runs twice at once.
 * A 10^6-event graph and its indexes are about 100 MB.
 */
import { MeteredCache, type CacheCounts } from './metered-cache.ts';

/** Two 10^6-event graphs. */
export const DEFAULT_GRAPH_CACHE_BYTES = 192 * 1024 * 1024;

export class CausalGraphCache<Entry extends { readonly bytes: number }> {
  private readonly entries: MeteredCache<string, Promise<Entry>>;

  constructor(maxBytes = DEFAULT_GRAPH_CACHE_BYTES) {
    this.entries = new MeteredCache('causal_graph', maxBytes);
  }

  /**
   * Runs `next` on the timeline's entry once every earlier read of it is done (undefined when none is kept,
   * or the last one failed), and keeps what it returns: the same entry brought up to date, or a new one.
   */
  update(timelineId: string, next: (entry: Entry | undefined) => Promise<Entry>): Promise<Entry> {
    const previous = this.entries.get(timelineId);
    const entry = (async () => next(previous && (await previous.catch(() => undefined))))();
    this.entries.setPending(timelineId, entry, entry, (settled) => settled.bytes);
    return entry;
  }

  /** A deleted timeline's graph (tens of MB at 10^6 events) goes at once, not when it ages out. */
  forget(timelineId: string): void {
    this.entries.delete(timelineId);
  }

  counts(): CacheCounts {
    return this.entries.counts();
  }
}
