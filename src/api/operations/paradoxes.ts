import { z } from 'zod';
import type { OperationDeps } from '../deps.ts';
import { defineOperation } from '../operation.ts';
import { timelineIdField } from '../fields.ts';
import { requireTimeline } from '../timeline-access.ts';
import { analyseTimeline } from '../paradox-json.ts';

const checkInput = z.strictObject({ timeline_id: timelineIdField });

export function paradoxOperations(deps: OperationDeps) {
  return {
    'tms.v1.ParadoxService.CheckParadox': defineOperation(checkInput, async (ctx, input) => {
      await requireTimeline(deps.store, ctx.principal, input.timeline_id, 'read');
      return analyseTimeline(deps, input.timeline_id, undefined, ctx.request);
    }),
  };
}
