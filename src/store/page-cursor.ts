import { hash } from 'node:crypto';
import { INSTANT_KEY_BYTES } from '../time/index.ts';

/** What a page token is tied to: a search's timeline, words and time range. */
export interface SearchIdentity {
  timelineId: string;
  /** Normalised, de-duplicated, sorted. */
  words: readonly string[];
  startKey?: Uint8Array;
  endKey?: Uint8Array;
}

const VERSION = 2;
/** Tokens whose fingerprint is SHA-256, given before version 2: still taken, so paging survives an upgrade. */
const SHA256_VERSION = 1;
const FINGERPRINT_BYTES = 8;

const FNV_PRIME = 0x01000193;

/**
 * FNV-1a in two 32-bit lanes over the search's parts, each part length-prefixed. It tells one query's tokens
 * from another's; like the SHA-256 before it, it is no secret, and a search spends less on it
 * (docs/performance.md, "Page tokens: a cheaper fingerprint").
 */
function fingerprint(search: SearchIdentity): Buffer {
  let low = 0x811c9dc5;
  let high = 0x050c5d1f;
  const mix = (value: number): void => {
    low = Math.imul(low ^ value, FNV_PRIME);
    high = Math.imul(high ^ (value + 0x9e37), FNV_PRIME);
  };
  const text = (value: string): void => {
    mix(value.length);
    for (let i = 0; i < value.length; i++) mix(value.charCodeAt(i));
  };
  const bytes = (value: Uint8Array | undefined): void => {
    if (!value) {
      mix(0x10000);
      return;
    }
    mix(value.length);
    for (let i = 0; i < value.length; i++) mix(value[i]!);
  };
  text(search.timelineId);
  mix(search.words.length);
  for (const word of search.words) text(word);
  bytes(search.startKey);
  bytes(search.endKey);
  const out = Buffer.allocUnsafe(FINGERPRINT_BYTES);
  out.writeUInt32BE(low >>> 0, 0);
  out.writeUInt32BE(high >>> 0, 4);
  return out;
}

/** The fingerprint of version-1 tokens. */
function sha256Fingerprint({ timelineId, words, startKey, endKey }: SearchIdentity): Buffer {
  const hex = (key: Uint8Array | undefined) => (key ? Buffer.from(key).toString('hex') : '');
  return hash('sha256', JSON.stringify([timelineId, words, hex(startKey), hex(endKey)]), 'buffer').subarray(0, FINGERPRINT_BYTES);
}

/** Opaque base64url: version, the search's fingerprint, then the (time, id) sort key of the last event returned. */
export function encodeCursor(search: SearchIdentity, lastSortKey: Uint8Array): string {
  return Buffer.concat([Buffer.from([VERSION]), fingerprint(search), lastSortKey]).toString('base64url');
}

/** A cursor the store cannot continue from; the operation that took it from a client names the field. */
export class BadCursorError extends Error {
  override name = 'BadCursorError';
}

/** The sort key a page token continues after, if it was given by `search`. */
export function decodeCursor(cursor: string, search: SearchIdentity): Buffer {
  const invalid = (problem: string) => new BadCursorError(problem);
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid('not a page token of this service');
  const bytes = Buffer.from(cursor, 'base64url');
  const version = bytes[0];
  if (bytes.length <= 1 + FINGERPRINT_BYTES + INSTANT_KEY_BYTES || (version !== VERSION && version !== SHA256_VERSION)) {
    throw invalid('not a page token of this service');
  }
  const expected = version === VERSION ? fingerprint(search) : sha256Fingerprint(search);
  if (!bytes.subarray(1, 1 + FINGERPRINT_BYTES).equals(expected)) {
    throw invalid('belongs to a different query (timeline, location or time range changed)');
  }
  return bytes.subarray(1 + FINGERPRINT_BYTES);
}
