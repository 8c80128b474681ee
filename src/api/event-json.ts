import type { Principal } from '../accounts/principal.ts';
import type { EventRecord, TimelineRecord } from '../store/types.ts';
import { hasScope } from '../accounts/principal.ts';

/**
 * Who may see the account names on an event: admins, and each author for their own writes. Everyone else
 * sees when an event was written but not by whom (account names are not public).
 */
export const seesAuthor = (viewer: Principal, author: string | undefined): boolean =>
  author !== undefined && (author === viewer.account || hasScope(viewer, 'admin'));

/** The `tms.v1.Event` JSON for a stored event as `viewer` may see it (empty fields left out, as proto JSON does). */
export function eventJson(event: EventRecord, viewer: Principal): Record<string, unknown> {
  const json: Record<string, unknown> = {
    event_id: event.event_id,
    description: event.description,
    time: event.time,
    location: event.location,
    causes: event.causes,
    status: event.status,
    timeline_id: event.timeline_id,
  };
  if (event.supersedes) json['supersedes'] = event.supersedes;
  if (event.superseded_by) json['superseded_by'] = event.superseded_by;
  if (event.changes?.length) json['changes'] = event.changes;
  if (event.created_by && seesAuthor(viewer, event.created_by)) json['created_by'] = event.created_by;
  if (event.created_at) json['created_at'] = event.created_at;
  if (event.reverted_by && seesAuthor(viewer, event.reverted_by)) json['reverted_by'] = event.reverted_by;
  if (event.reverted_at) json['reverted_at'] = event.reverted_at;
  return json;
}

/** The `tms.v1.Timeline` JSON for a stored timeline record. */
export function timelineJson(timeline: TimelineRecord): Record<string, unknown> {
  return {
    timeline_id: timeline.timeline_id,
    kind: timeline.kind,
    description: timeline.description,
    base_timeline_id: timeline.base_timeline_id,
    variation: timeline.variation,
    created_at: timeline.created_at,
    owner: timeline.owner,
    revision: timeline.revision,
    event_count: timeline.event_count,
    stability: timeline.stability,
  };
}
