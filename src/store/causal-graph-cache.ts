/**
 * The causal graphs built last, one per timeline, within a budget of bytes. An entry is valid while the
 * timeline's chain stamp (any commit on any level of the chain changes it) and the genesis snapshots it was
 * built from (a bulk load replaces them) are unchanged, so back-to-back analyses of an unchanged timeline
 * share one graph and concurrent reads share one build. A 10^6-event graph is about 85 MB: a timeline's
 * old graph is dropped as soon as a build for its new state starts.
 */
import type { CausalGraph } from '../analysis/causal-graph.ts';
import { MeteredCache, stringBytes, typedArrayBytes, type CacheCounts } from './metered-cache.ts';

interface Entry {
  stamp: string;
  sources: readonly unknown[];
  graph: Promise<CausalGraph>;
}

/** Two 10^6-event graphs. */
export const DEFAULT_GRAPH_CACHE_BYTES = 192 * 1024 * 1024;

export class CausalGraphCache {
  private readonly entries: MeteredCache<string, Entry>;

  constructor(maxBytes = DEFAULT_GRAPH_CACHE_BYTES) {
    this.entries = new MeteredCache('causal_graph', maxBytes);
  }

  get(timelineId: string, stamp: string, sources: readonly unknown[]): Promise<CausalGraph> | undefined {
    const entry = this.entries.get(timelineId);
    if (!entry || entry.stamp !== stamp || !sameItems(entry.sources, sources)) return undefined;
    return entry.graph;
  }

  /** Caches a graph being built; a build that fails is forgotten. */
  set(timelineId: string, stamp: string, sources: readonly unknown[], graph: Promise<CausalGraph>): void {
    this.entries.setPending(timelineId, { stamp, sources, graph }, graph, graphBytes);
  }

  /** A deleted timeline's graph (tens of MB at 10^6 events) goes at once, not when it ages out. */
  forget(timelineId: string): void {
    this.entries.delete(timelineId);
  }

  counts(): CacheCounts {
    return this.entries.counts();
  }
}

/** Ids are alike in length: the first stands for all, rather than a walk over 10^6 strings. */
export const graphBytes = (graph: CausalGraph): number =>
  typedArrayBytes(graph) + graph.eventIds.length * (8 + stringBytes(graph.eventIds[0] ?? ''));

function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}
