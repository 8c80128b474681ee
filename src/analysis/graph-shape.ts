import { ApiError } from '../domain/errors.ts';
import { EventState, type CausalGraph } from './causal-graph.ts';

/** The typed arrays of a causal graph: what crosses to a worker (the ids stay behind). */
export type CausalGraphArrays = Omit<CausalGraph, 'eventIds'>;

export const GRAPH_ARRAY_FIELDS = [
  'seconds',
  'nanos',
  'state',
  'causeOffsets',
  'causeTargets',
  'manipulatedAtMs',
  'traveller',
  'place',
  'causeEnds',
] as const satisfies readonly (keyof CausalGraphArrays)[];

const malformed = (problem: string): ApiError => new ApiError('internal', `causal graph: ${problem}`);

/**
 * Checks the hand-off format before any algorithm indexes into it (one linear pass): a graph built wrongly
 * by the store, or whose arrays are still detached by another analysis, fails here with a clear message.
 */
export function assertCausalGraphShape(graph: CausalGraphArrays): number {
  if (graph.causeOffsets.length === 0) {
    throw malformed('its arrays are detached: the graph is being analysed on a worker (await that first) or was never built');
  }
  const count = graph.seconds.length;
  for (const field of ['nanos', 'state', 'manipulatedAtMs', 'traveller', 'place'] as const) {
    if (graph[field].length !== count) {
      throw malformed(`${field} has ${graph[field].length} entries for ${count} events (detached by a running analysis?)`);
    }
  }
  const { causeOffsets, causeTargets, causeEnds } = graph;
  if (causeOffsets.length !== count + 1) {
    throw malformed(`causeOffsets has ${causeOffsets.length} entries for ${count} events (expected ${count + 1})`);
  }
  if (causeEnds) assertRows(graph, causeEnds, count);
  else {
    if (causeOffsets[0] !== 0 || causeOffsets[count] !== causeTargets.length) {
      throw malformed(`causeOffsets must run from 0 to causeTargets.length (${causeTargets.length})`);
    }
    for (let event = 0; event < count; event++) {
      if (causeOffsets[event + 1]! < causeOffsets[event]!) throw malformed(`causeOffsets decreases at event ${event}`);
    }
  }
  for (let link = 0; link < causeTargets.length; link++) {
    const target = causeTargets[link]!;
    if (target < 0 || target >= count) throw malformed(`causeTargets[${link}] = ${target} is not an event index`);
  }
  return count;
}

/** Rows placed anywhere in causeTargets: each inside it, a gone node's empty, and no row naming a gone node. */
function assertRows(graph: CausalGraphArrays, causeEnds: Int32Array, count: number): void {
  const { causeOffsets, causeTargets, state } = graph;
  if (causeEnds.length !== count) throw malformed(`causeEnds has ${causeEnds.length} entries for ${count} events`);
  for (let event = 0; event < count; event++) {
    const start = causeOffsets[event]!;
    const end = causeEnds[event]!;
    if (start < 0 || end < start || end > causeTargets.length) throw malformed(`the causes of event ${event} lie outside causeTargets`);
    if (state[event] === EventState.gone && end > start) throw malformed(`gone event ${event} has causes`);
    for (let link = start; link < end; link++) {
      if (state[causeTargets[link]!] === EventState.gone) throw malformed(`event ${event} names gone event ${causeTargets[link]} as a cause`);
    }
  }
}
