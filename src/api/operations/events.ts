import { z } from 'zod';
import type { OperationDeps } from '../deps.ts';
import type { RequestContext } from '../operation.ts';
import type { Instant } from '../../time/index.ts';
import type { SearchPage } from '../../store/types.ts';
import type { Principal } from '../../accounts/principal.ts';
import { hasScope } from '../../accounts/principal.ts';
import { defineOperation } from '../operation.ts';
import { blankAsMissing, booleanField, idField, instantField, intervalField, pageSizeField, pageTokenField, textField, timelineIdField } from '../fields.ts';
import { requireTimeline } from '../timeline-access.ts';
import { PRIMARY_TIMELINE_ID } from '../../domain/timelines.ts';
import { canSee } from '../../accounts/authorization.ts';
import { eventJson } from '../event-json.ts';
import { invalidArgument, notAManipulation, notFound } from '../../domain/errors.ts';
import { safetyCheck } from './safety-check.ts';
import { BadCursorError } from '../../store/page-cursor.ts';
import { markReusable } from '../reusable-output.ts';
import { pageSizeOf } from '../paging.ts';
import { locationWords } from '../../store/location-words.ts';

/** A location is searched by its words: one with none (`!!!`) would silently search every place. */
const locationField = textField(500).refine((text) => locationWords(text).length > 0, 'has no letters or digits to search by');

export const searchInput = z.strictObject({
  location: blankAsMissing(locationField.optional()),
  time_range: blankAsMissing(intervalField.optional()),
  timeline_id: timelineIdField,
  page_size: pageSizeField,
  page_token: pageTokenField,
});

export type SearchEventsInput = z.infer<typeof searchInput>;

export async function searchEvents(deps: OperationDeps, ctx: RequestContext, query: SearchEventsInput): Promise<object> {
  await requireTimeline(deps.store, ctx.principal, query.timeline_id, 'read');
  const pageSize = pageSizeOf(query.page_size, deps.config);
  const page = await deps.store
    .search(query.timeline_id, {
      words: query.location ? [query.location] : [],
      start: query.time_range?.start,
      end: query.time_range?.end,
      pageSize,
      cursor: query.page_token,
    })
    .catch((error: unknown) => {
      throw error instanceof BadCursorError ? invalidArgument('page_token', error.message) : error;
    });
  return searchOutput(page, ctx.principal);
}

const outputs = new WeakMap<SearchPage, Map<string, object>>();

/**
 * A page the store serves again (from its cache) gets the same frozen output for the same audience
 * (admins; or one account, which sees its own authorship), and faces may reuse its encoding.
 */
function searchOutput(page: SearchPage, viewer: Principal): object {
  const audience = hasScope(viewer, 'admin') ? '' : viewer.account;
  let byAudience = outputs.get(page);
  if (!byAudience) outputs.set(page, (byAudience = new Map()));
  let output = byAudience.get(audience);
  if (!output) {
    const events = Object.freeze(page.events.map((event) => Object.freeze(eventJson(event, viewer))));
    output = markReusable(Object.freeze({ events, next_page_token: page.nextCursor ?? '' }));
    byAudience.set(audience, output);
  }
  return output;
}

const changeInput = z.strictObject({
  action: z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters'),
  time: instantField,
});

export const manipulateInput = z.strictObject({
  event_id: idField,
  new_outcome: z.strictObject({
    description: textField().min(1, 'is required'),
    changes: z.array(changeInput).max(100, 'at most 100 changes').default([]),
  }),
  safety_check: booleanField.default(false),
  timeline_id: timelineIdField,
});

export interface Manipulation {
  event_id: string;
  timeline_id: string;
  safety_check: boolean;
  /** Absent: the new event keeps the original's description (the flat tutorial form). */
  description?: string;
  changes: { action: string; time: Instant }[];
}

export async function manipulateEvent(deps: OperationDeps, ctx: RequestContext, request: Manipulation): Promise<object> {
  await requireTimeline(deps.store, ctx.principal, request.timeline_id, 'change');
  const description = request.description ?? (await deps.store.getEvent(request.timeline_id, request.event_id))?.description ?? '';
  const { original, created } = await deps.store.manipulate(
    request.timeline_id,
    request.event_id,
    {
      description,
      changes: request.changes,
    },
    ctx.principal.account,
    request.safety_check ? safetyCheck(deps, request.timeline_id, ctx.request) : undefined,
  );
  const happens = created.status !== 'cancelled';
  return {
    status: happens ? 'Event manipulated successfully' : 'Event manipulated successfully: it no longer happens',
    new_event_id: created.event_id,
    description: created.description,
    ...(happens ? { time: created.time } : {}),
    original_event_id: original.event_id,
    timeline_id: request.timeline_id,
    event: eventJson(created, ctx.principal),
  };
}

// Without timeline_id, revert finds the timeline the manipulation was made on (the spec's request has only event_id).
export const revertInput = z.strictObject({ event_id: idField, timeline_id: blankAsMissing(idField.optional()) });

/**
 * The one timeline the caller can see on which the manipulation was made. An original event of primary (which
 * branches that changed it have also written) is said to be no manipulation rather than ambiguous or unknown.
 */
async function madeOn(deps: OperationDeps, ctx: RequestContext, eventId: string): Promise<string> {
  const onPrimary = await deps.store.getEvent(PRIMARY_TIMELINE_ID, eventId);
  if (onPrimary && onPrimary.supersedes === undefined) throw notAManipulation(eventId);
  const visible: string[] = [];
  for (const id of await deps.store.timelinesWriting(eventId)) {
    const owner = await deps.store.timelineOwner(id);
    if (owner !== undefined && canSee(ctx.principal, owner)) visible.push(id);
  }
  if (visible.length > 1) throw invalidArgument('timeline_id', `event "${eventId}" was written on several timelines (${visible.join(', ')}); name one`);
  if (visible.length === 0) throw notFound('event', eventId);
  return visible[0]!;
}

export function eventOperations(deps: OperationDeps) {
  return {
    'tms.v1.EventService.SearchEvents': defineOperation(searchInput, (ctx, input) => searchEvents(deps, ctx, input)),
    'tms.v1.EventService.ManipulateEvent': defineOperation(manipulateInput, (ctx, input) =>
      manipulateEvent(deps, ctx, {
        event_id: input.event_id,
        timeline_id: input.timeline_id,
        safety_check: input.safety_check,
        description: input.new_outcome.description,
        changes: input.new_outcome.changes,
      }),
    ),
    'tms.v1.EventService.RevertEvent': defineOperation(revertInput, async (ctx, input) => {
      const timelineId = input.timeline_id ?? (await madeOn(deps, ctx, input.event_id));
      await requireTimeline(deps.store, ctx.principal, timelineId, 'change');
      const { restored } = await deps.store.revert(timelineId, input.event_id, ctx.principal.account);
      return { status: 'Event reverted successfully', original_event_id: restored.event_id, timeline_id: timelineId };
    }),
  };
}
