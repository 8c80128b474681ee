// A causal graph as plain data, independent of node numbering and of gone nodes: what a graph kept write by
// write must equal in a graph built afresh.
import { EventState, type CausalGraph } from '../../src/analysis/causal-graph.ts';
import { causeRowEnds } from '../../src/analysis/graph-rows.ts';

/** Nodes that stand, in order. */
export function standingNodes(graph: CausalGraph): number[] {
  const nodes: number[] = [];
  for (let node = 0; node < graph.seconds.length; node++) if (graph.state[node] !== EventState.gone) nodes.push(node);
  return nodes;
}

/** Ids of the events that stand, sorted. */
export function standingIds(graph: CausalGraph): string[] {
  return standingNodes(graph).map((node) => graph.eventIds[node]!).sort();
}

/** The causes of a node, by id, in the order of its row. */
export function causeIds(graph: CausalGraph, node: number): string[] {
  const ends = causeRowEnds(graph);
  return Array.from(graph.causeTargets.subarray(graph.causeOffsets[node]!, ends[node]!), (target) => graph.eventIds[target]!);
}

export function causesOfEvent(graph: CausalGraph, eventId: string): string[] | undefined {
  const node = standingNodes(graph).find((at) => graph.eventIds[at] === eventId);
  return node === undefined ? undefined : causeIds(graph, node);
}

/**
 * Every standing event by id: state, time, when it was manipulated, its causes by id in row order, and its
 * place and traveller as the first id (in id order) sharing that number, so that numbering differences vanish.
 */
export function canonicalGraph(graph: CausalGraph): Record<string, unknown> {
  const nodes = standingNodes(graph).sort((a, b) => (graph.eventIds[a]! < graph.eventIds[b]! ? -1 : 1));
  const firstAt = (numbers: Int32Array, none?: number) => {
    const first = new Map<number, string>();
    for (const node of nodes) if (numbers[node] !== none && !first.has(numbers[node]!)) first.set(numbers[node]!, graph.eventIds[node]!);
    return (node: number) => (numbers[node] === none ? null : first.get(numbers[node]!)!);
  };
  const placeOf = firstAt(graph.place);
  const travellerOf = firstAt(graph.traveller, -1);
  const out: Record<string, unknown> = {};
  for (const node of nodes) {
    out[graph.eventIds[node]!] = {
      state: graph.state[node],
      seconds: graph.seconds[node],
      nanos: graph.nanos[node],
      manipulatedAtMs: graph.manipulatedAtMs[node],
      place: placeOf(node),
      traveller: travellerOf(node),
      causes: causeIds(graph, node),
    };
  }
  return out;
}
