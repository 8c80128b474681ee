import { EventState } from './causal-graph.ts';
import type { CausalGraphArrays } from './graph-shape.ts';
import { compareEvents } from './instants.ts';
import type { ParadoxCollector } from './paradox-collector.ts';

/** How long a traveller stays after arriving: the stay is [arrival, arrival + 1 hour). */
export const STAY_SECONDS = 3600;

/**
 * self_encounter: two arrivals of the same traveller at the same place whose stays overlap, one paradox per
 * pair. Arrivals are sorted by (traveller, place, time); for each arrival a forward pointer marks the end of
 * the later arrivals that land within its stay. Pairs are counted in O(1) per arrival (the window's arrivals
 * are a contiguous run of a time-sorted group) and built only while the list has room, so a crowd of arrivals
 * at one spot costs a sort, not a quadratic enumeration.
 */
export function detectSelfEncounters(graph: CausalGraphArrays, collector: ParadoxCollector): void {
  const arrivals = sortedArrivals(graph);
  const { traveller, place } = graph;
  let groupStart = 0;
  while (groupStart < arrivals.length) {
    const first = arrivals[groupStart]!;
    let groupEnd = groupStart + 1;
    while (
      groupEnd < arrivals.length &&
      traveller[arrivals[groupEnd]!] === traveller[first] &&
      place[arrivals[groupEnd]!] === place[first]
    ) {
      groupEnd++;
    }
    if (groupEnd - groupStart > 1) detectInGroup(graph, arrivals.subarray(groupStart, groupEnd), collector);
    groupStart = groupEnd;
  }
}

function detectInGroup(graph: CausalGraphArrays, group: Int32Array, collector: ParadoxCollector): void {
  let windowStart = -1;
  let windowEnd = -1;
  for (let position = 0; position < group.length; position++) {
    if (!collector.inside(group[position]!)) continue;
    if (windowStart < 0) windowStart = position;
    windowEnd = position + 1;
  }
  if (windowStart < 0) return;

  let overlapEnd = 0;
  for (let position = 0; position < group.length; position++) {
    const earlier = group[position]!;
    if (overlapEnd <= position) overlapEnd = position + 1;
    while (overlapEnd < group.length && staysOverlap(graph, earlier, group[overlapEnd]!)) overlapEnd++;
    let from = position + 1;
    let to = overlapEnd;
    if (!collector.inside(earlier)) {
      from = Math.max(from, windowStart);
      to = Math.min(to, windowEnd);
    }
    if (to <= from || !collector.count('self_encounter', to - from)) continue;
    for (let later = from; later < to && !collector.listFull; later++) {
      collector.list({
        kind: 'self_encounter',
        eventIndexes: [earlier, group[later]!],
        eventCount: 2,
        description: '{0} and {1} are arrivals of the same traveller at the same place less than an hour apart: their stays overlap',
      });
    }
  }
}

/** Whether `later` (not before `earlier`) arrives before the stay that starts at `earlier` ends. */
function staysOverlap(graph: CausalGraphArrays, earlier: number, later: number): boolean {
  // Exact where it matters: the product loses digits only when the seconds differ by millions, far from a stay.
  const beyondStay = (graph.seconds[later]! - graph.seconds[earlier]! - STAY_SECONDS) * 1e9 + graph.nanos[later]! - graph.nanos[earlier]!;
  return beyondStay < 0;
}

function sortedArrivals(graph: CausalGraphArrays): Int32Array {
  const { traveller, place, state } = graph;
  const found: number[] = [];
  for (let event = 0; event < traveller.length; event++) {
    if (traveller[event]! >= 0 && state[event] === EventState.happens) found.push(event);
  }
  const arrivals = Int32Array.from(found);
  arrivals.sort(
    (a, b) => traveller[a]! - traveller[b]! || place[a]! - place[b]! || compareEvents(graph, a, b) || a - b,
  );
  return arrivals;
}
