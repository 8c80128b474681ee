import { z } from 'zod';
import type { OperationDeps } from '../deps.ts';
import type { RequestContext } from '../operation.ts';
import type { EventRecord } from '../../store/types.ts';
import { defineOperation } from '../operation.ts';
import { blankAsMissing, booleanField, idField, instantField, intervalField, optionalTextField, requiredTextField, textField, timelineIdField } from '../fields.ts';
import { requireTimeline } from '../timeline-access.ts';
import { PRIMARY_TIMELINE_ID } from '../../domain/timelines.ts';
import { eventJson } from '../event-json.ts';
import { manipulateEvent, searchEvents, searchInput } from './events.ts';
import { analyseTimeline } from '../paradox-json.ts';
import { addDuration, parseDuration, TimeFormatError, type Instant } from '../../time/index.ts';

const travelInput = z.strictObject({
  destination_time: instantField,
  location: requiredTextField(500),
  timeline_id: timelineIdField,
  traveller: optionalTextField(200),
});

const flatManipulateInput = z.strictObject({
  event_id: idField,
  action: requiredTextField(100),
  time: instantField,
  description: blankAsMissing(textField().optional()),
  safety_check: booleanField.default(false),
  timeline_id: timelineIdField,
});

const monitorInput = z.strictObject({ timeline_id: timelineIdField, time_range: intervalField });
const checkTimelineInput = z.strictObject({ timeline_id: idField, significant_event: requiredTextField(500) });

/** Events at the arrival's place within a day either side, so a traveller sees where they landed. */
const NEARBY = parseDuration('P1D');

/** `NEARBY` before or after `at`; none where that is beyond the supported years (nothing happens there). */
function nearbyBound(at: Instant, sign: 1 | -1): Instant | undefined {
  try {
    return addDuration(at, NEARBY, sign);
  } catch (error) {
    if (error instanceof TimeFormatError) return undefined;
    throw error;
  }
}

async function travel(deps: OperationDeps, ctx: RequestContext, input: z.output<typeof travelInput>): Promise<object> {
  await requireTimeline(deps.store, ctx.principal, input.timeline_id, 'change');
  const traveller = input.traveller ?? ctx.principal.account;
  // Before the arrival is written: nothing may fail after it, or a retry would arrive twice.
  const start = nearbyBound(input.destination_time, -1);
  const end = nearbyBound(input.destination_time, 1);
  const arrival = await deps.store.insertEvent(
    input.timeline_id,
    {
      description: `Arrival of traveller ${traveller}`,
      time: input.destination_time,
      location: input.location,
      causes: [],
      kind: 'arrival',
      traveller,
    },
    ctx.principal.account,
  );
  const page = await deps.store.search(input.timeline_id, {
    words: [input.location],
    start,
    end,
    pageSize: 20,
  });
  return {
    status: `Arrived at ${input.location} on ${arrival.time}`,
    arrival: eventJson(arrival, ctx.principal),
    nearby_events: page.events.filter((e) => e.event_id !== arrival.event_id).map((event) => eventJson(event, ctx.principal)),
  };
}

/** The event that stands on a timeline for `eventId`: itself, or what replaced it, or nothing. */
async function standingVersion(deps: OperationDeps, timelineId: string, eventId: string): Promise<EventRecord | undefined> {
  let event = await deps.store.getEvent(timelineId, eventId);
  for (let hops = 0; event?.superseded_by && hops < 1000; hops++) event = await deps.store.getEvent(timelineId, event.superseded_by);
  return event;
}

/** The version a chain of changes on a timeline began with: the event as first recorded. */
async function firstVersion(deps: OperationDeps, timelineId: string, event: EventRecord): Promise<EventRecord | undefined> {
  let version: EventRecord | undefined = event;
  for (let hops = 0; version?.supersedes && hops < 1000; hops++) version = await deps.store.getEvent(timelineId, version.supersedes);
  return version;
}

/**
 * The event `text` names, as primary first recorded it: an event id, or else the first event in time order whose
 * description contains the text, on primary and then on the timeline asked about. A match is any version of the
 * event (primary may have changed or cancelled it, the timeline may keep it as it was), and the answer is always its
 * first version on primary, so the id and the text of one event find the same record.
 */
async function findSignificantEvent(deps: OperationDeps, timelineId: string, text: string): Promise<EventRecord | undefined> {
  const byId = await deps.store.getEvent(PRIMARY_TIMELINE_ID, text);
  if (byId) return firstVersion(deps, PRIMARY_TIMELINE_ID, byId);
  const needle = text.toLowerCase();
  for (const where of new Set([PRIMARY_TIMELINE_ID, timelineId])) {
    let cursor: string | undefined;
    // Descriptions are not indexed: each scan is bounded, and an id is the fast, exact way to ask.
    for (let scanned = 0; scanned < 100_000; ) {
      const page = await deps.store.search(where, { words: [], pageSize: 1000, cursor });
      for (const hit of page.events) {
        if (!hit.description.toLowerCase().includes(needle)) continue;
        const first = await firstVersion(deps, where, hit);
        if (first && where === PRIMARY_TIMELINE_ID) return first;
        // An event made on the timeline itself has no record on primary to compare with.
        const onPrimary = first && (await deps.store.getEvent(PRIMARY_TIMELINE_ID, first.event_id));
        if (onPrimary) return onPrimary;
      }
      scanned += page.events.length;
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
  }
  return undefined;
}

const COMPARED = ['description', 'time', 'location'] as const;

async function checkTimeline(deps: OperationDeps, ctx: RequestContext, input: z.output<typeof checkTimelineInput>): Promise<object> {
  await requireTimeline(deps.store, ctx.principal, input.timeline_id, 'read');
  const original = await findSignificantEvent(deps, input.timeline_id, input.significant_event);
  if (!original) {
    return {
      status: `No event matching "${input.significant_event}" happens on primary or on timeline "${input.timeline_id}"`,
      state: 'absent',
      differences: [],
    };
  }
  const standing = await standingVersion(deps, input.timeline_id, original.event_id);
  const primaryEvent = eventJson(original, ctx.principal);
  if (!standing || standing.status === 'cancelled' || standing.status === 'reverted') {
    return {
      status: `Event "${original.event_id}" no longer happens on timeline "${input.timeline_id}"`,
      state: 'absent',
      primary_event: primaryEvent,
      ...(standing ? { event: eventJson(standing, ctx.principal) } : {}),
      differences: [],
    };
  }
  const differences = COMPARED.filter((field) => standing[field] !== original[field]).map((field) => ({
    field,
    primary_value: original[field],
    timeline_value: standing[field],
  }));
  const state = differences.length === 0 && standing.event_id === original.event_id ? 'intact' : 'altered';
  return {
    status: `Event "${original.event_id}" is ${state} on timeline "${input.timeline_id}"`,
    state,
    event: eventJson(standing, ctx.principal),
    primary_event: primaryEvent,
    differences,
  };
}

export function tutorialOperations(deps: OperationDeps) {
  return {
    'tms.v1.TutorialService.Travel': defineOperation(travelInput, (ctx, input) => travel(deps, ctx, input)),
    'tms.v1.TutorialService.ScanEvents': defineOperation(searchInput, (ctx, input) => searchEvents(deps, ctx, input)),
    'tms.v1.TutorialService.ManipulateEvent': defineOperation(flatManipulateInput, (ctx, input) =>
      manipulateEvent(deps, ctx, {
        event_id: input.event_id,
        timeline_id: input.timeline_id,
        safety_check: input.safety_check,
        description: input.description,
        changes: [{ action: input.action, time: input.time }],
      }),
    ),
    'tms.v1.TutorialService.MonitorParadox': defineOperation(monitorInput, async (ctx, input) => {
      await requireTimeline(deps.store, ctx.principal, input.timeline_id, 'read');
      return analyseTimeline(deps, input.timeline_id, input.time_range, ctx.request);
    }),
    'tms.v1.TutorialService.CheckTimeline': defineOperation(checkTimelineInput, (ctx, input) => checkTimeline(deps, ctx, input)),
  };
}
