import type { OperationDeps } from '../deps.ts';
import type { ManipulationProposal, Precheck } from '../../store/types.ts';
import type { ParadoxJson } from '../paradox-json.ts';
import { abandoned, type TaskRequest } from '../../analysis/task-turns.ts';
import { ApiError } from '../../domain/errors.ts';
import { paradoxesJson } from '../paradox-json.ts';

const keyOf = (p: ParadoxJson): string => `${p.kind}:${p.anchor_id ?? ''}:${[...p.event_ids].sort().join(',')}`;

/**
 * Runs before anything is written (the store's `precheck`): analyses the timeline as it stands and as it would
 * stand after the change, and refuses the change if it adds any paradox.
 */
export function safetyCheck(deps: OperationDeps, timelineId: string, forRequest?: TaskRequest): Precheck {
  return async (proposal: ManipulationProposal) => {
    // Answered already (its deadline passed, or its client left): neither the graphs nor the change are wanted.
    if (forRequest?.ended) throw abandoned();
    const anchors = await deps.store.anchorPins(timelineId);
    const [before, after] = await Promise.all([
      deps.store.readCausalGraph(timelineId),
      deps.store.readCausalGraph(timelineId, { overlay: [proposal.original, proposal.created] }),
    ]);
    const [reportBefore, reportAfter] = await Promise.all([
      deps.pool.analyseParadoxes(before.graph, anchors, { forRequest }).finally(before.release),
      deps.pool.analyseParadoxes(after.graph, anchors, { forRequest }).finally(after.release),
    ]);
    const existing = new Set(paradoxesJson(reportBefore, before.graph).map(keyOf));
    // The change renames the original: a paradox that only swapped the old id for the new one is not new.
    const renamed = (p: ParadoxJson): ParadoxJson => ({
      ...p,
      event_ids: p.event_ids.map((id) => (id === proposal.created.event_id ? proposal.original.event_id : id)),
    });
    const added = paradoxesJson(reportAfter, after.graph).filter((p) => !existing.has(keyOf(renamed(p))));
    // Only the first paradoxes are listed; a count that grew means a new one even when the list is full.
    const grewUnlisted = Object.entries(reportAfter.countsByKind).filter(
      ([kind, count]) => count > reportBefore.countsByKind[kind as keyof typeof reportBefore.countsByKind],
    );
    if (added.length === 0 && grewUnlisted.length === 0) return;
    if (added.length === 0) {
      throw new ApiError(
        'failed_precondition',
        `safety check failed: manipulating "${proposal.original.event_id}" would add paradoxes (${grewUnlisted.map(([kind]) => kind).join(', ')}) beyond the listed ones; nothing was written`,
      );
    }
    // The new event's id was never written, so the caller could not look it up: it is reported as the event they
    // asked to change.
    const reported = added.map((p) => ({
      ...renamed(p),
      description: p.description.replaceAll(JSON.stringify(proposal.created.event_id), `${JSON.stringify(proposal.original.event_id)} as changed`),
    }));
    const listed = reported.map((p) => `${p.kind} (${p.event_ids.join(', ')})`).join('; ');
    throw new ApiError(
      'failed_precondition',
      `safety check failed: manipulating "${proposal.original.event_id}" would cause ${added.length} paradox${added.length === 1 ? '' : 'es'}: ${listed}; nothing was written`,
      reported.map((p) => ({ type: 'tms.v1.Paradox', debug: { ...p } })),
    );
  };
}
