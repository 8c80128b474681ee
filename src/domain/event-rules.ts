/**
 * What a manipulation, a revert and an insertion do to events, and when each is allowed: the same for every
 * store backend. A store finds the events (through the timeline's chain), asks these rules what to write,
 * and writes it atomically.
 */
import { formatInstant, nowInstant } from '../time/index.ts';
import type { EventRecord, NewEvent, Outcome } from '../store/types.ts';
import { ApiError, notAManipulation } from './errors.ts';

/** Actions that stop the event from happening: the new version is `cancelled`. */
const CANCELLING_ACTIONS = new Set(['prevent', 'cancel']);

const isoNow = (): string => formatInstant(nowInstant());
const refused = (message: string): ApiError => new ApiError('failed_precondition', message);
const actionOf = (change: { action: string }): string => change.action.trim().toLowerCase();

export const eventNotFound = (eventId: string, timelineId: string): ApiError =>
  new ApiError('not_found', `event "${eventId}" not found on timeline "${timelineId}"`);

/** Throws unless `original` (as the timeline sees it) may be manipulated. */
export function checkManipulable(timelineId: string, original: EventRecord): void {
  if (original.superseded_by !== undefined) {
    throw new ApiError('aborted', `event "${original.event_id}" was already superseded by "${original.superseded_by}" on timeline "${timelineId}"`);
  }
  if (original.status === 'reverted' || original.status === 'cancelled') {
    throw refused(`event "${original.event_id}" is ${original.status} on timeline "${timelineId}" and cannot be manipulated`);
  }
}

export const newEventIdTaken = (eventId: string, timelineId: string): ApiError =>
  new ApiError('already_exists', `event "${eventId}" already exists on timeline "${timelineId}"`);

/**
 * The two versions a manipulation writes on `timelineId`: the original, now superseded, and the new event.
 * The new event takes the time of the last `reschedule`, and is `cancelled` when any change prevents it.
 */
export function planManipulation(
  timelineId: string,
  original: EventRecord,
  outcome: Outcome,
  newEventId: string,
  actor: string,
): { superseded: EventRecord; created: EventRecord } {
  checkManipulable(timelineId, original);
  const changes = outcome.changes.map((change) => ({ action: change.action, time: formatInstant(change.time) }));
  const reschedule = changes.findLast((change) => actionOf(change) === 'reschedule');
  const cancelled = changes.some((change) => CANCELLING_ACTIONS.has(actionOf(change)));
  const created: EventRecord = {
    event_id: newEventId,
    timeline_id: timelineId,
    description: outcome.description,
    time: reschedule?.time ?? original.time,
    location: original.location,
    causes: [...original.causes],
    status: cancelled ? 'cancelled' : 'manipulated',
    supersedes: original.event_id,
    changes,
    ...(original.kind !== undefined && { kind: original.kind }),
    ...(original.traveller !== undefined && { traveller: original.traveller }),
    created_by: actor,
    created_at: isoNow(),
  };
  return { superseded: { ...original, timeline_id: timelineId, superseded_by: newEventId }, created };
}

/**
 * The two versions a revert writes on `timelineId`: the manipulation, now `reverted`, and the event it
 * superseded, standing again. `original` is what the timeline sees under the manipulation's `supersedes` id.
 */
export function planRevert(
  timelineId: string,
  manipulated: EventRecord,
  original: EventRecord | undefined,
  actor: string,
): { reverted: EventRecord; restored: EventRecord } {
  const id = manipulated.event_id;
  if (manipulated.supersedes === undefined) throw notAManipulation(id);
  if (manipulated.status === 'reverted') throw refused(`event "${id}" was already reverted on timeline "${timelineId}"`);
  if (manipulated.superseded_by !== undefined) {
    throw refused(`event "${id}" was itself superseded by "${manipulated.superseded_by}" on timeline "${timelineId}"; revert that event first`);
  }
  if (!original || original.superseded_by !== id) {
    throw refused(`event "${manipulated.supersedes}" is not superseded by "${id}" on timeline "${timelineId}"; nothing to restore`);
  }
  const reverted: EventRecord = { ...manipulated, timeline_id: timelineId, status: 'reverted', reverted_by: actor, reverted_at: isoNow() };
  const { superseded_by: _undone, ...restored } = original;
  return { reverted, restored: { ...restored, timeline_id: timelineId } };
}

/** A new event as inserted on `timelineId` (an arrival, or an event made by hand). */
export function newEventRecord(timelineId: string, eventId: string, event: NewEvent, actor: string): EventRecord {
  return {
    event_id: eventId,
    timeline_id: timelineId,
    description: event.description,
    time: formatInstant(event.time),
    location: event.location,
    causes: [...event.causes],
    status: 'original',
    ...(event.kind !== undefined && { kind: event.kind }),
    ...(event.traveller !== undefined && { traveller: event.traveller }),
    created_by: actor,
    created_at: isoNow(),
  };
}
