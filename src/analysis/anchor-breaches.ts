import type { AnchorPin } from './causal-graph.ts';
import type { CausalGraphArrays } from './graph-shape.ts';
import { compareEvents, compareEventTo, compareInstantPoints } from './instants.ts';
import type { ParadoxCollector } from './paradox-collector.ts';
import { forEachCauseOfHappeningEvent } from './distinct-causes.ts';

/**
 * anchor_breach: for an anchor pinning instant A, set at wall-clock S, a link cause → effect where the cause is
 * at or before A and was changed after S (manipulatedAtMs > S) and the effect happens after A: the change
 * reaches past the anchor. One paradox per (anchor, cause, effect). Anchors are sorted by instant, so each
 * link visits only the anchors between its two ends.
 */
export function detectAnchorBreaches(graph: CausalGraphArrays, anchors: readonly AnchorPin[], collector: ParadoxCollector): void {
  if (anchors.length === 0) return;
  const { sorted, earliestSetAt } = walkOrderOf(anchors);
  const { manipulatedAtMs } = graph;
  forEachCauseOfHappeningEvent(graph, (effect, cause) => {
    const changedAt = manipulatedAtMs[cause]!;
    if (changedAt <= earliestSetAt || compareEvents(graph, cause, effect) >= 0) return;
    for (let k = firstAnchorAtOrAfter(sorted, graph, cause); k < sorted.length; k++) {
      const anchor = sorted[k]!;
      if (compareEventTo(graph, effect, anchor) <= 0) break;
      if (changedAt <= anchor.setAtMs || !(collector.inside(cause) || collector.inside(effect))) continue;
      if (collector.count('anchor_breach')) {
        collector.list({
          kind: 'anchor_breach',
          eventIndexes: [cause, effect],
          eventCount: 2,
          anchorId: anchor.anchorId,
          description: `{0} was changed after anchor ${JSON.stringify(anchor.anchorId)} was set, at or before the instant it pins, and its effect {1} comes after that instant`,
        });
      }
    }
  });
}

interface WalkOrder {
  sorted: readonly AnchorPin[];
  earliestSetAt: number;
}

/** Frozen pin arrays (the store shares one per timeline until an anchor changes) are ordered once, not per check. */
const walkOrderOfFrozen = new WeakMap<readonly AnchorPin[], WalkOrder>();

/**
 * For a caller that keeps its frozen pins in instant order and knows when the earliest was set (the store does, as
 * it changes them anchor by anchor): a check then need not find out with two passes over all of them.
 */
export function knowWalkOrder(pins: readonly AnchorPin[], earliestSetAt: number): void {
  if (Object.isFrozen(pins)) walkOrderOfFrozen.set(pins, { sorted: pins, earliestSetAt });
}

/** When the earliest of `anchors` was set (a loop, not Math.min(...): some 10^5 anchors as arguments overflow the stack). */
export function earliestSetAtOf(anchors: readonly AnchorPin[]): number {
  return anchors.reduce((earliest, anchor) => Math.min(earliest, anchor.setAtMs), Infinity);
}

function walkOrderOf(anchors: readonly AnchorPin[]): WalkOrder {
  const known = walkOrderOfFrozen.get(anchors);
  if (known) return known;
  const order = {
    sorted: inInstantOrder(anchors) ? anchors : [...anchors].sort(compareInstantPoints),
    earliestSetAt: earliestSetAtOf(anchors),
  };
  if (Object.isFrozen(anchors)) walkOrderOfFrozen.set(anchors, order);
  return order;
}

/** Only a changed event can breach an anchor: a graph with none (primary, usually) needs no pins weighed. */
export function mayBreachAnchors(graph: CausalGraphArrays): boolean {
  const { manipulatedAtMs } = graph;
  for (let event = 0; event < manipulatedAtMs.length; event++) if (manipulatedAtMs[event]! > 0) return true;
  return false;
}

/** Callers that keep their pins sorted (the API does) spare every check a sort. */
function inInstantOrder(anchors: readonly AnchorPin[]): boolean {
  for (let k = 1; k < anchors.length; k++) if (compareInstantPoints(anchors[k - 1]!, anchors[k]!) > 0) return false;
  return true;
}

function firstAnchorAtOrAfter(sorted: readonly AnchorPin[], graph: CausalGraphArrays, event: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareEventTo(graph, event, sorted[middle]!) > 0) low = middle + 1;
    else high = middle;
  }
  return low;
}
