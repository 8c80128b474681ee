import { encodeInstantKey, INSTANT_KEY_BYTES, parseInstant } from '../time/index.ts';
import { sharedLocationWords, sharedWords } from './location-words.ts';
import type { EventRecord } from './types.ts';
import type { VersionInfo } from './version-index.ts';

export function encodeRecord(record: unknown): Uint8Array {
  // Buffer's UTF-8 encoding is 2.4 times faster than TextEncoder's (measured on 10^6 records of 240 bytes), and
  // small ones share a pooled allocation instead of each having an ArrayBuffer of its own.
  return Buffer.from(JSON.stringify(record), 'utf8');
}

export function decodeRecord<T = EventRecord>(bytes: Uint8Array): T {
  // Buffer's UTF-8 decoding is faster than TextDecoder's on Node 20 (no copy: a view of the same bytes).
  return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as T;
}

/** An event happens (is searched, counted, and is a live node) unless superseded, reverted or cancelled. */
export function happens(record: EventRecord): boolean {
  return record.superseded_by === undefined && record.status !== 'reverted' && record.status !== 'cancelled';
}

/** It stands on its timeline (is a node of the causal graph): not superseded and not reverted. */
export function stands(record: EventRecord): boolean {
  return record.superseded_by === undefined && record.status !== 'reverted';
}

const timeKey = Buffer.alloc(INSTANT_KEY_BYTES);

/** The record's time key as latin1 text (`VersionInfo.timeText`). */
export function timeTextOf(record: EventRecord): string {
  encodeInstantKey(parseInstant(record.time), timeKey);
  return timeKey.toString('latin1');
}

export function summarise(record: EventRecord, lsn: number): VersionInfo {
  const info: VersionInfo = { lsn, happens: happens(record), timeText: timeTextOf(record), words: sharedLocationWords(record.location) };
  if (record.supersedes !== undefined) info.supersedes = record.supersedes;
  return info;
}

const WORDS_AT = 1 + INSTANT_KEY_BYTES + 2;

/** `c` value: flags byte, time key, length-prefixed location words (space-separated), then `supersedes`. */
export function encodeSummary(info: VersionInfo): Uint8Array {
  const words = Buffer.from(info.words.join(' '), 'utf8');
  const supersedes = Buffer.from(info.supersedes ?? '', 'utf8');
  const out = Buffer.allocUnsafe(WORDS_AT + words.length + supersedes.length);
  out[0] = info.happens ? 1 : 0;
  out.write(info.timeText, 1, 'latin1');
  out.writeUInt16BE(words.length, 1 + INSTANT_KEY_BYTES);
  words.copy(out, WORDS_AT);
  supersedes.copy(out, WORDS_AT + words.length);
  return out;
}

export function decodeSummary(lsn: number, bytes: Uint8Array): VersionInfo {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const wordsEnd = WORDS_AT + view.readUInt16BE(1 + INSTANT_KEY_BYTES);
  const words = view.toString('utf8', WORDS_AT, wordsEnd);
  const info: VersionInfo = {
    lsn,
    happens: view[0] === 1,
    timeText: view.toString('latin1', 1, 1 + INSTANT_KEY_BYTES),
    words: sharedWords(words),
  };
  if (wordsEnd < view.length) info.supersedes = view.toString('utf8', wordsEnd);
  return info;
}
