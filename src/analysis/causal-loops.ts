import type { CausalGraphArrays } from './graph-shape.ts';
import { causeRowEnds } from './graph-rows.ts';
import type { ParadoxCollector } from './paradox-collector.ts';
import { MAX_EVENTS_PER_PARADOX, placeholderList } from './paradox-report.ts';
import { forEachStronglyConnectedComponent } from './strongly-connected.ts';

const NAMED_IN_DESCRIPTION = 3;

/** causal_loop: every strongly connected component of more than one event, and every event that causes itself. */
export function detectCausalLoops(graph: CausalGraphArrays, collector: ParadoxCollector): void {
  const { causeOffsets, causeTargets } = graph;
  const ends = causeRowEnds(graph);
  forEachStronglyConnectedComponent(causeOffsets, ends, causeTargets, (members) => {
    if (members.length === 1) {
      const event = members[0]!;
      if (!causesItself(graph, ends, event) || !collector.inside(event)) return;
      if (collector.count('causal_loop')) {
        collector.list({ kind: 'causal_loop', eventIndexes: [event], eventCount: 1, description: '{0} is its own cause' });
      }
      return;
    }
    if (collector.windowFlags !== undefined && !members.some((event) => collector.inside(event))) return;
    if (!collector.count('causal_loop')) return;
    const eventIndexes = Array.from(members).sort((a, b) => a - b).slice(0, MAX_EVENTS_PER_PARADOX);
    collector.list({ kind: 'causal_loop', eventIndexes, eventCount: members.length, description: loopDescription(members.length) });
  });
}

function causesItself(graph: CausalGraphArrays, ends: Int32Array, event: number): boolean {
  for (let link = graph.causeOffsets[event]!; link < ends[event]!; link++) {
    if (graph.causeTargets[link] === event) return true;
  }
  return false;
}

function loopDescription(size: number): string {
  if (size <= NAMED_IN_DESCRIPTION) return `${placeholderList(0, size)} cause one another (a causal loop)`;
  const named = Array.from({ length: NAMED_IN_DESCRIPTION }, (_, k) => `{${k}}`).join(', ');
  return `${named} and ${size - NAMED_IN_DESCRIPTION} more events cause one another (a causal loop of ${size} events)`;
}
