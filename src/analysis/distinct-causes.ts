import { EventState } from './causal-graph.ts';
import type { CausalGraphArrays } from './graph-shape.ts';
import { causeRowEnds } from './graph-rows.ts';

/**
 * Calls `visit(effect, cause)` once for each distinct cause of every event that happens: a link listed twice
 * is one link. Iterative, one pass over the edges.
 */
export function forEachCauseOfHappeningEvent(graph: CausalGraphArrays, visit: (effect: number, cause: number) => void): void {
  const { state, causeOffsets, causeTargets } = graph;
  const ends = causeRowEnds(graph);
  const seenInRow = new Int32Array(state.length).fill(-1);
  for (let effect = 0; effect < state.length; effect++) {
    if (state[effect] !== EventState.happens) continue;
    for (let link = causeOffsets[effect]!; link < ends[effect]!; link++) {
      const cause = causeTargets[link]!;
      if (seenInRow[cause] === effect) continue;
      seenInRow[cause] = effect;
      visit(effect, cause);
    }
  }
}
