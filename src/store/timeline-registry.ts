import type { TimelineRecord } from './types.ts';

/** A level of a read chain: versions at `level` with an LSN above `cap` are invisible (Infinity: live). */
export interface ChainLink {
  level: number;
  cap: number;
}

/** The timeline record as stored: the public fields (less the computed `event_count`) plus internals. */
export interface StoredTimeline extends Omit<TimelineRecord, 'event_count'> {
  /** Number of this timeline's key ranges; never reused. */
  level: number;
  /** Alternates only: the base's resolved chain at creation, every level capped. */
  frozen_chain?: [level: number, cap: number][];
  /** Bulk-loaded (genesis) events on this level, all of which happen. */
  genesis_count: number;
  /** Bulk loads finished on this level: a load may rewrite events loaded before, which changes no count. */
  genesis_loads?: number;
  snapshot_chunks: number;
  /** Location words frequent among the genesis events, with counts (see GenesisAccumulator.frequentWords). */
  frequent_words?: Record<string, number>;
  /** Set while a bulk load runs; found set at open, the load was interrupted. */
  loading?: boolean;
}

export interface TimelineState {
  /** As durably committed: what readers see. */
  record: StoredTimeline;
  /** The newest record a write has built and not yet committed: what the next write builds on. */
  pendingRecord?: StoredTimeline;
  /** LSN of the last batch committed to this level: reads see the level up to here. */
  committedLsn: number;
  /** Created in memory, its record not yet durable. */
  pending: boolean;
  deleting: boolean;
  bulkLoading: boolean;
}

export class TimelineRegistry {
  private readonly byId = new Map<string, TimelineState>();
  private readonly byLevel = new Map<number, TimelineState>();
  private highestLevel = 0;

  add(record: StoredTimeline, pending = false): TimelineState {
    const state: TimelineState = { record, committedLsn: 0, pending, deleting: false, bulkLoading: false };
    this.byId.set(record.timeline_id, state);
    this.byLevel.set(record.level, state);
    this.reserveLevel(record.level);
    return state;
  }

  remove(state: TimelineState): void {
    if (this.byId.get(state.record.timeline_id) === state) this.byId.delete(state.record.timeline_id);
    if (this.byLevel.get(state.record.level) === state) this.byLevel.delete(state.record.level);
  }

  reserveLevel(level: number): void {
    if (level > this.highestLevel) this.highestLevel = level;
  }

  nextLevel(): number {
    this.highestLevel += 1;
    return this.highestLevel;
  }

  has(timelineId: string): boolean {
    return this.byId.has(timelineId);
  }

  /** A timeline that can be read and written: durable and not being deleted. */
  live(timelineId: string): TimelineState | undefined {
    const state = this.byId.get(timelineId);
    return state && !state.pending && !state.deleting ? state : undefined;
  }

  atLevel(level: number): TimelineState | undefined {
    return this.byLevel.get(level);
  }

  all(): TimelineState[] {
    return [...this.byId.values()].filter((state) => !state.pending && !state.deleting).sort((a, b) => a.record.level - b.record.level);
  }

  /** Timelines branched from this one, including ones still being created. */
  children(timelineId: string): TimelineState[] {
    return [...this.byId.values()].filter((state) => state.record.base_timeline_id === timelineId);
  }

  /** chain(T) = [(T, ∞)] ++ (alternate ? frozen chain : parallel ? chain(base) : []). */
  chain(state: TimelineState): ChainLink[] {
    const links: ChainLink[] = [];
    let current: TimelineState | undefined = state;
    while (current) {
      const { record } = current;
      links.push({ level: record.level, cap: Infinity });
      if (record.kind === 'alternate') {
        for (const [level, cap] of record.frozen_chain ?? []) links.push({ level, cap });
        break;
      }
      if (record.kind !== 'parallel') break;
      current = this.byId.get(record.base_timeline_id);
    }
    return links;
  }

  hasGenesis(level: number): boolean {
    const record = this.byLevel.get(level)?.record;
    return !!record && (record.genesis_count > 0 || record.loading === true);
  }

  highestCap(): number {
    let max = 0;
    for (const { record } of this.byId.values()) for (const [, cap] of record.frozen_chain ?? []) if (cap > max) max = cap;
    return max;
  }
}

/**
 * Caps every link at its level's last committed LSN, as it is now: a read sees each level exactly as its
 * committed batches left it (a batch writes versions to one level only, so this is atomic per batch), and
 * sees its own timeline's acknowledged writes.
 */
export function capChain(registry: TimelineRegistry, chain: ChainLink[]): ChainLink[] {
  return chain.map(({ level, cap }) => ({ level, cap: Math.min(cap, registry.atLevel(level)?.committedLsn ?? 0) }));
}
