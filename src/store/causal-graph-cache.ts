/**
 * The causal graphs built last, one per timeline for the few timelines read most recently. An entry is
 * valid while the timeline's chain stamp (any commit on any level of the chain changes it) and the genesis
 * snapshots it was built from (a bulk load replaces them) are unchanged, so back-to-back analyses of an
 * unchanged timeline share one graph and concurrent reads share one build. A 10^6-event graph is about
 * 45 MB: a timeline's old graph is dropped as soon as a build for its new state starts.
 */
import type { CausalGraph } from '../analysis/causal-graph.ts';

interface Entry {
  stamp: string;
  sources: readonly unknown[];
  graph: Promise<CausalGraph>;
}

export const DEFAULT_GRAPH_CACHE_TIMELINES = 2;

export class CausalGraphCache {
  private readonly capacity: number;
  /** timeline id → entry, least recently used first. */
  private readonly entries = new Map<string, Entry>();

  constructor(capacity = DEFAULT_GRAPH_CACHE_TIMELINES) {
    this.capacity = capacity;
  }

  get(timelineId: string, stamp: string, sources: readonly unknown[]): Promise<CausalGraph> | undefined {
    const entry = this.entries.get(timelineId);
    if (!entry || entry.stamp !== stamp || !sameItems(entry.sources, sources)) return undefined;
    this.entries.delete(timelineId);
    this.entries.set(timelineId, entry);
    return entry.graph;
  }

  /** Caches a graph being built; a build that fails is forgotten. */
  set(timelineId: string, stamp: string, sources: readonly unknown[], graph: Promise<CausalGraph>): void {
    const entry: Entry = { stamp, sources, graph };
    this.entries.delete(timelineId);
    this.entries.set(timelineId, entry);
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    graph.catch(() => {
      if (this.entries.get(timelineId) === entry) this.entries.delete(timelineId);
    });
  }

  /** A deleted timeline's graph (tens of MB at 10^6 events) goes at once, not when it ages out. */
  forget(timelineId: string): void {
    this.entries.delete(timelineId);
  }

  get size(): number {
    return this.entries.size;
  }
}

function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}
