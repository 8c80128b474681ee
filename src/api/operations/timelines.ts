import { z } from 'zod';
import type { OperationDeps } from '../deps.ts';
import type { RequestContext } from '../operation.ts';
import { defineOperation } from '../operation.ts';
import { blankAsMissing, idField, optionalTextField, pageSizeField, pageTokenField, requiredTextField, textField } from '../fields.ts';
import { requireTimeline } from '../timeline-access.ts';
import { PRIMARY_TIMELINE_ID } from '../../domain/timelines.ts';
import { timelineJson } from '../event-json.ts';
import { canSee } from '../../accounts/authorization.ts';
import { ApiError, notFound } from '../../domain/errors.ts';
import { pageOf, pageSizeOf } from '../paging.ts';
import { encodeInstantKey, parseInstant } from '../../time/index.ts';
import type { TimelineRecord } from '../../store/types.ts';

const baseFields = {
  base_timeline_id: blankAsMissing(idField.default(PRIMARY_TIMELINE_ID)),
  description: textField(2000).default(''),
};
const createInput = z.strictObject(baseFields);
const createParallelInput = z.strictObject({ ...baseFields, variation: requiredTextField(2000) });
const insertInput = z.strictObject({ ...baseFields, variation: optionalTextField(2000) });
const byIdInput = z.strictObject({ timeline_id: idField });
const listInput = z.strictObject({ page_size: pageSizeField, page_token: pageTokenField });

async function create(
  deps: OperationDeps,
  ctx: RequestContext,
  input: { base_timeline_id: string; description: string; variation?: string },
): Promise<Record<string, unknown>> {
  // Branching reads the base; it never changes it, so reading it is enough.
  await requireTimeline(deps.store, ctx.principal, input.base_timeline_id, 'read');
  const kind = input.variation === undefined ? 'alternate' : 'parallel';
  const timeline = await deps.store.createTimeline({
    kind,
    base_timeline_id: input.base_timeline_id,
    description: input.description,
    variation: input.variation ?? '',
    owner: ctx.principal.account,
  });
  return {
    timeline_id: timeline.timeline_id,
    status: `${kind === 'parallel' ? 'Parallel' : 'Alternate'} timeline created successfully`,
    description: timeline.description,
    timeline: timelineJson(timeline),
  };
}

/** When the timeline was made (its stored instant's sortable bytes), then its id. */
const creationOrder = (timeline: TimelineRecord): string =>
  `${Buffer.from(encodeInstantKey(parseInstant(timeline.created_at))).toString('hex')} ${timeline.timeline_id}`;

/** Timelines are listed in creation order, `primary` (made first) first. */
async function list(deps: OperationDeps, ctx: RequestContext, input: z.output<typeof listInput>): Promise<object> {
  const visible = (await deps.store.listTimelines()).filter((t) => canSee(ctx.principal, t.owner));
  const page = pageOf(visible, creationOrder, pageSizeOf(input.page_size, deps.config), input.page_token);
  return { timelines: page.items.map(timelineJson), next_page_token: page.nextPageToken };
}

export function timelineOperations(deps: OperationDeps) {
  return {
    'tms.v1.TimelineService.CreateTimeline': defineOperation(createInput, (ctx, input) => create(deps, ctx, input)),
    'tms.v1.TimelineService.CreateParallelTimeline': defineOperation(createParallelInput, (ctx, input) => create(deps, ctx, input)),
    'tms.v1.TimelineService.InsertTimeline': defineOperation(insertInput, (ctx, input) => create(deps, ctx, input)),
    'tms.v1.TimelineService.ListTimelines': defineOperation(listInput, (ctx, input) => list(deps, ctx, input)),
    'tms.v1.TimelineService.GetTimeline': defineOperation(byIdInput, async (ctx, input) => {
      await requireTimeline(deps.store, ctx.principal, input.timeline_id, 'read');
      const timeline = await deps.store.getTimeline(input.timeline_id);
      if (!timeline) throw notFound('timeline', input.timeline_id);
      return { timeline: timelineJson(timeline) };
    }),
    'tms.v1.TimelineService.DeleteTimeline': defineOperation(byIdInput, async (ctx, input) => {
      if (input.timeline_id === PRIMARY_TIMELINE_ID) throw new ApiError('failed_precondition', 'timeline "primary" can never be deleted');
      await requireTimeline(deps.store, ctx.principal, input.timeline_id, 'change');
      await deps.store.deleteTimeline(input.timeline_id);
      return { status: 'Timeline deleted successfully', timeline_id: input.timeline_id };
    }),
  };
}
