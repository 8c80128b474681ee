/**
 * Key layout inside the store's sublevel. Every key starts with a one-byte tag; per-timeline keys follow it
 * with the timeline's 4-byte level number, so a timeline's data is a handful of contiguous ranges.
 *
 *   m <timeline_id>                         timeline record (JSON)
 *   x <level>                               tombstone of a deleted timeline whose ranges are still being cleared
 *   v <level> <event_id> 00 <lsn:8>         one version of an event (EventRecord JSON); genesis versions have lsn 0
 *   c <level> <event_id> 00 <lsn:8>         version summary (flags, time key, location words), loaded at open
 *   t <level> <time:12> <event_id>          genesis time index, read where a level has no in-memory index: the
 *                                           event's location words (genesis-time-entry.ts; older stores: its JSON)
 *   w <level> <word> 00 <time:12> <event_id> no longer written: older stores' genesis word index (JSON), cleared with the level
 *   s <level> <chunk:4>                     genesis snapshot for the causal graph, in chunks
 *   a <level> <anchor_id>                   anchor (JSON)
 *   A <anchor_id>                           anchor → timeline id
 */
import { INSTANT_KEY_BYTES, writeSafeInstantKey } from '../time/index.ts';

export const Tag = {
  timeline: 0x6d,
  tombstone: 0x78,
  version: 0x76,
  summary: 0x63,
  timeIndex: 0x74,
  wordIndex: 0x77,
  snapshot: 0x73,
  anchor: 0x61,
  anchorOwner: 0x41,
} as const;

const LSN_BYTES = 8;
const TWO_POW_32 = 2 ** 32;

export function utf8(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

export function tagKey(tag: number, text = ''): Buffer {
  const body = utf8(text);
  const key = Buffer.allocUnsafe(1 + body.length);
  key[0] = tag;
  body.copy(key, 1);
  return key;
}

export function levelPrefix(tag: number, level: number): Buffer {
  const key = Buffer.allocUnsafe(5);
  key[0] = tag;
  key.writeUInt32BE(level, 1);
  return key;
}

/** The smallest key greater than every key that starts with `prefix`. */
export function prefixEnd(prefix: Uint8Array): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]! += 1;
      return end.subarray(0, i + 1);
    }
  }
  throw new RangeError('a prefix of 0xff bytes has no end');
}

function writeLsn(target: Buffer, offset: number, lsn: number): void {
  target.writeUInt32BE(Math.floor(lsn / TWO_POW_32), offset);
  target.writeUInt32BE(lsn % TWO_POW_32, offset + 4);
}

function readLsn(source: Uint8Array, offset: number): number {
  const view = Buffer.from(source.buffer, source.byteOffset, source.byteLength);
  return view.readUInt32BE(offset) * TWO_POW_32 + view.readUInt32BE(offset + 4);
}

/** `v` or `c` key of one version. */
export function versionKey(tag: number, level: number, eventId: string, lsn: number): Buffer {
  const id = utf8(eventId);
  const key = Buffer.allocUnsafe(5 + id.length + 1 + LSN_BYTES);
  key[0] = tag;
  key.writeUInt32BE(level, 1);
  id.copy(key, 5);
  key[5 + id.length] = 0;
  writeLsn(key, 6 + id.length, lsn);
  return key;
}

export interface ParsedVersionKey {
  level: number;
  eventId: string;
  lsn: number;
}

export function parseVersionKey(key: Uint8Array): ParsedVersionKey {
  const view = Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  const idEnd = view.length - LSN_BYTES - 1;
  return {
    level: view.readUInt32BE(1),
    eventId: view.toString('utf8', 5, idEnd),
    lsn: readLsn(view, idEnd + 1),
  };
}

/** Sort key of an event in every index: time key then id bytes, so byte order is (time, event_id) order. */
export function sortKey(timeKey: Uint8Array, eventId: string): Buffer {
  const key = Buffer.allocUnsafe(INSTANT_KEY_BYTES + Buffer.byteLength(eventId));
  key.set(timeKey, 0);
  key.write(eventId, INSTANT_KEY_BYTES);
  return key;
}

/** The same sort key from an instant held as numbers, seconds within ±2^53 (an in-memory index's). */
export function sortKeyAt(seconds: number, nanos: number, eventId: string): Buffer {
  const key = Buffer.allocUnsafe(INSTANT_KEY_BYTES + Buffer.byteLength(eventId));
  writeSafeInstantKey(seconds, nanos, key, 0);
  key.write(eventId, INSTANT_KEY_BYTES);
  return key;
}

export function timeIndexPrefix(level: number): Buffer {
  return levelPrefix(Tag.timeIndex, level);
}

export function levelKey(tag: number, level: number, suffix: Uint8Array): Buffer {
  return Buffer.concat([levelPrefix(tag, level), suffix]);
}

export function chunkKey(level: number, chunk: number): Buffer {
  const key = Buffer.allocUnsafe(9);
  key[0] = Tag.snapshot;
  key.writeUInt32BE(level, 1);
  key.writeUInt32BE(chunk, 5);
  return key;
}

/** Tags whose keys all start with <tag><level>: everything a timeline owns. */
export const LEVEL_TAGS = [Tag.version, Tag.summary, Tag.timeIndex, Tag.wordIndex, Tag.snapshot, Tag.anchor] as const;
