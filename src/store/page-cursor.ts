import { hash } from 'node:crypto';
import { INSTANT_KEY_BYTES } from '../time/index.ts';

const VERSION = 1;
const HASH_BYTES = 8;

/** Identifies a query, so a cursor is only accepted by the query that produced it. */
export function queryFingerprint(parts: readonly unknown[]): Buffer {
  return hash('sha256', JSON.stringify(parts), 'buffer').subarray(0, HASH_BYTES);
}

/** Opaque base64url: version, query fingerprint, then the (time, id) sort key of the last event returned. */
export function encodeCursor(fingerprint: Buffer, lastSortKey: Uint8Array): string {
  return Buffer.concat([Buffer.from([VERSION]), fingerprint, lastSortKey]).toString('base64url');
}

/** A cursor the store cannot continue from; the operation that took it from a client names the field. */
export class BadCursorError extends Error {
  override name = 'BadCursorError';
}

export function decodeCursor(cursor: string, fingerprint: Buffer): Buffer {
  const invalid = (problem: string) => new BadCursorError(problem);
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid('not a page token of this service');
  const bytes = Buffer.from(cursor, 'base64url');
  if (bytes.length <= 1 + HASH_BYTES + INSTANT_KEY_BYTES || bytes[0] !== VERSION) throw invalid('not a page token of this service');
  if (!bytes.subarray(1, 1 + HASH_BYTES).equals(fingerprint)) {
    throw invalid('belongs to a different query (timeline, location or time range changed)');
  }
  return bytes.subarray(1 + HASH_BYTES);
}
