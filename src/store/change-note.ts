import { decodeSummary, encodeSummary } from './event-codec.ts';
import type { StoredTimeline } from './timeline-registry.ts';
import type { VersionInfo } from './version-index.ts';
import type { AnchorChange } from './anchor-index.ts';

/** What one commit changed in the state every node holds in memory, for the other nodes to replay. */
export interface ChangeNote {
  /** Timeline records written: created or changed. */
  timelines?: StoredTimeline[];
  /** Timelines deleted. */
  deleted?: { timeline_id: string; level: number }[];
  /** Event versions added (genesis markers included). */
  versions?: { level: number; eventId: string; info: VersionInfo }[];
  /** Anchors written or removed. */
  anchors?: AnchorChange[];
}

interface NoteJson {
  timelines?: StoredTimeline[];
  deleted?: { timeline_id: string; level: number }[];
  /** [level, event id, lsn, summary as base64] */
  versions?: [number, string, number, string][];
  anchors?: AnchorChange[];
}

export function encodeNote(note: ChangeNote): Uint8Array {
  const json: NoteJson = {};
  if (note.timelines?.length) json.timelines = note.timelines;
  if (note.deleted?.length) json.deleted = note.deleted;
  if (note.versions?.length) {
    json.versions = note.versions.map(({ level, eventId, info }) => [level, eventId, info.lsn, Buffer.from(encodeSummary(info)).toString('base64')]);
  }
  if (note.anchors?.length) json.anchors = note.anchors;
  return Buffer.from(JSON.stringify(json));
}

export function decodeNote(bytes: Uint8Array): ChangeNote {
  const json = JSON.parse(Buffer.from(bytes).toString('utf8')) as NoteJson;
  return {
    timelines: json.timelines ?? [],
    deleted: json.deleted ?? [],
    versions: (json.versions ?? []).map(([level, eventId, lsn, summary]) => ({
      level,
      eventId,
      info: decodeSummary(lsn, Buffer.from(summary, 'base64')),
    })),
    anchors: json.anchors ?? [],
  };
}
