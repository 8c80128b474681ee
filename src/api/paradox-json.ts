import type { CausalGraph } from '../analysis/causal-graph.ts';
import type { ParadoxReport } from '../analysis/paradox-report.ts';
import type { OperationDeps } from './deps.ts';
import type { Interval } from '../time/index.ts';
import { describeParadox } from '../analysis/paradox-report.ts';
import { mayBreachAnchors } from '../analysis/anchor-breaches.ts';
import { abandoned, type TaskRequest } from '../analysis/task-turns.ts';

export interface ParadoxJson {
  kind: string;
  severity: string;
  event_ids: string[];
  description: string;
  anchor_id?: string;
}

export function paradoxesJson(report: ParadoxReport, graph: CausalGraph): ParadoxJson[] {
  return report.paradoxes.map((paradox) => {
    const json: ParadoxJson = {
      kind: paradox.kind,
      severity: paradox.severity,
      event_ids: paradox.eventIndexes.map((i) => graph.eventIds[i]!),
      description: describeParadox(paradox, graph.eventIds),
    };
    if (paradox.anchorId !== undefined) json.anchor_id = paradox.anchorId;
    return json;
  });
}

/**
 * Runs the analysis of one timeline (on the pool when large) and shapes the `CheckParadoxResponse`. The anchors'
 * pins are asked for only when an event of the timeline was changed: after each new anchor they are a new copy of
 * all the pins, which the checks of a timeline never changed (primary, usually) need not pay for.
 */
export async function analyseTimeline(deps: OperationDeps, timelineId: string, window?: Interval, forRequest?: TaskRequest) {
  if (forRequest?.ended) throw abandoned();
  const started = performance.now();
  const { graph, release } = await deps.store.readCausalGraph(timelineId);
  let report: ParadoxReport;
  let anchorsAnalysed: number;
  try {
    const anchors = mayBreachAnchors(graph) ? await deps.store.anchorPins(timelineId) : undefined;
    anchorsAnalysed = anchors?.length ?? (await deps.store.countAnchors(timelineId));
    report = await deps.pool.analyseParadoxes(graph, anchors, { forRequest, ...(window ? { window } : {}) });
  } finally {
    release();
  }
  if (!window) await deps.store.setStability(timelineId, report.stability);
  return {
    status: report.status,
    timeline_stability: report.stability,
    paradoxes: paradoxesJson(report, graph),
    figures: {
      events_analysed: report.eventsAnalysed,
      links_analysed: report.linksAnalysed,
      anchors_analysed: anchorsAnalysed,
      duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
    },
  };
}
