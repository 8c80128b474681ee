// A paradox report as plain data independent of node numbering: indexes turned into ids, the listed paradoxes
// (without their descriptions, which name events by position) in a canonical order.
import type { CausalGraph } from '../../src/analysis/causal-graph.ts';
import type { ParadoxReport } from '../../src/analysis/paradox-report.ts';

export function reportByIds(report: ParadoxReport, graph: Pick<CausalGraph, 'eventIds'>) {
  const paradoxes = report.paradoxes
    .map((paradox) => JSON.stringify({ ...paradox, eventIndexes: paradox.eventIndexes.map((i) => graph.eventIds[i]!).sort(), description: undefined }))
    .sort();
  return { ...report, paradoxes };
}
