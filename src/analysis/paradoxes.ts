import type { AnchorPin } from './causal-graph.ts';
import { EventState } from './causal-graph.ts';
import { detectAnchorBreaches } from './anchor-breaches.ts';
import { detectCausalLoops } from './causal-loops.ts';
import { assertCausalGraphShape } from './graph-shape.ts';
import type { CausalGraphArrays } from './graph-shape.ts';
import { compareEvents, eventsInWindow } from './instants.ts';
import type { AnalysisWindow } from './instants.ts';
import { ParadoxCollector } from './paradox-collector.ts';
import {
  DEFAULT_MAX_LISTED_PARADOXES,
  MAX_EVENTS_PER_PARADOX,
  placeholderList,
  stabilityFromCounts,
  statusSentence,
} from './paradox-report.ts';
import type { ParadoxReport } from './paradox-report.ts';
import { detectSelfEncounters } from './self-encounters.ts';
import { forEachCauseOfHappeningEvent } from './distinct-causes.ts';
import { causeLinkCount, causeRowEnds, standingEventCount } from './graph-rows.ts';

export interface ParadoxAnalysisOptions {
  /** Report only paradoxes that involve at least one event inside this window (monitor-paradox). */
  window?: AnalysisWindow;
  /** How many paradoxes to list (all are counted). Default 1000. */
  maxListed?: number;
}

/**
 * The paradox check: pure, iterative and linear in events + links (plus a sort of the arrival events and
 * the anchors). Critical kinds are detected, and so listed, before the orphaned-effect warnings.
 */
export function analyseParadoxes(
  graph: CausalGraphArrays,
  anchors: readonly AnchorPin[] = [],
  options: ParadoxAnalysisOptions = {},
): ParadoxReport {
  assertCausalGraphShape(graph);
  const window = options.window === undefined ? undefined : eventsInWindow(graph, options.window);
  const collector = new ParadoxCollector(options.maxListed ?? DEFAULT_MAX_LISTED_PARADOXES, window);

  detectCausalLoops(graph, collector);
  detectCausalityViolations(graph, collector);
  detectAnchorBreaches(graph, anchors, collector);
  detectSelfEncounters(graph, collector);
  detectOrphanedEffects(graph, collector);

  const paradoxCount = collector.total;
  return {
    paradoxes: collector.paradoxes,
    paradoxCount,
    criticalCount: collector.criticalCount,
    warningCount: collector.warningCount,
    countsByKind: collector.countsByKind,
    truncated: paradoxCount > collector.paradoxes.length,
    stability: stabilityFromCounts(collector.criticalCount, collector.warningCount),
    status: statusSentence(paradoxCount),
    eventsAnalysed: standingEventCount(graph),
    linksAnalysed: causeLinkCount(graph),
    anchorsAnalysed: anchors.length,
  };
}

/** causality_violation: an event that happens and a cause of it that happens strictly later. One per link. */
function detectCausalityViolations(graph: CausalGraphArrays, collector: ParadoxCollector): void {
  const { state } = graph;
  forEachCauseOfHappeningEvent(graph, (effect, cause) => {
    if (state[cause] !== EventState.happens || compareEvents(graph, cause, effect) <= 0) return;
    if (!(collector.inside(effect) || collector.inside(cause))) return;
    if (collector.count('causality_violation')) {
      collector.list({
        kind: 'causality_violation',
        eventIndexes: [effect, cause],
        eventCount: 2,
        description: '{0} happens before its cause {1}',
      });
    }
  });
}

/** orphaned_effect: an event that happens although one or more of its causes are cancelled. One per event. */
function detectOrphanedEffects(graph: CausalGraphArrays, collector: ParadoxCollector): void {
  const { state, causeOffsets, causeTargets } = graph;
  const ends = causeRowEnds(graph);
  const seenInRow = new Int32Array(state.length).fill(-1);
  for (let effect = 0; effect < state.length; effect++) {
    if (state[effect] !== EventState.happens) continue;
    let cancelledCauses = 0;
    let touchesWindow = collector.inside(effect);
    for (let link = causeOffsets[effect]!; link < ends[effect]!; link++) {
      const cause = causeTargets[link]!;
      if (seenInRow[cause] === effect || state[cause] === EventState.happens) continue;
      seenInRow[cause] = effect;
      cancelledCauses++;
      touchesWindow ||= collector.inside(cause);
    }
    if (cancelledCauses === 0 || !touchesWindow || !collector.count('orphaned_effect')) continue;
    const eventIndexes = [effect];
    const listedCauses = new Set<number>();
    for (let link = causeOffsets[effect]!; link < ends[effect]!; link++) {
      const cause = causeTargets[link]!;
      if (state[cause] === EventState.happens || listedCauses.has(cause)) continue;
      listedCauses.add(cause);
      eventIndexes.push(cause);
      if (eventIndexes.length === MAX_EVENTS_PER_PARADOX) break;
    }
    collector.list({
      kind: 'orphaned_effect',
      eventIndexes,
      eventCount: cancelledCauses + 1,
      description: `{0} still happens although ${orphanCauses(cancelledCauses)} cancelled`,
    });
  }
}

const NAMED_CAUSES = 3;

function orphanCauses(cancelledCauses: number): string {
  if (cancelledCauses === 1) return 'its cause {1} was';
  if (cancelledCauses <= NAMED_CAUSES) return `its causes ${placeholderList(1, cancelledCauses)} were`;
  const named = Array.from({ length: NAMED_CAUSES }, (_, k) => `{${k + 1}}`).join(', ');
  return `its causes ${named} and ${cancelledCauses - NAMED_CAUSES} more were`;
}
