import { EventState } from './causal-graph.ts';
import type { CausalGraphArrays } from './graph-shape.ts';

type Rows = Pick<CausalGraphArrays, 'causeOffsets' | 'causeEnds'>;

/** Where each event's causes end: row i is causeTargets[causeOffsets[i] .. ends[i]). */
export function causeRowEnds(graph: Rows): Int32Array {
  return graph.causeEnds ?? graph.causeOffsets.subarray(1);
}

/** Events that stand (gone nodes are positions kept for numbering, not events). */
export function standingEventCount(graph: Pick<CausalGraphArrays, 'state'>): number {
  let count = 0;
  for (const state of graph.state) if (state !== EventState.gone) count++;
  return count;
}

/** Cause links of every row (left-over targets between rows are not links). */
export function causeLinkCount(graph: Rows): number {
  if (!graph.causeEnds) return graph.causeOffsets[graph.causeOffsets.length - 1]!;
  let links = 0;
  for (let event = 0; event < graph.causeEnds.length; event++) links += graph.causeEnds[event]! - graph.causeOffsets[event]!;
  return links;
}
