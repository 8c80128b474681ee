import { randomFillSync } from 'node:crypto';
import { ApiError } from '../domain/errors.ts';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const MAX_ID_LENGTH = 200;

const ID_BYTES = 13;
/** Random bytes are drawn from the system a pool at a time: one call per id costs more than the id. */
const pool = Buffer.allocUnsafe(ID_BYTES * 256);
let poolUsed = pool.length;

function randomIdBytes(): Buffer {
  if (poolUsed === pool.length) {
    randomFillSync(pool);
    poolUsed = 0;
  }
  poolUsed += ID_BYTES;
  return pool.subarray(poolUsed - ID_BYTES, poolUsed);
}

/** `prefix` + 20 base32 characters (100 random bits). */
export function randomId(prefix: string): string {
  const bytes = randomIdBytes();
  let bits = 0;
  let value = 0;
  let out = prefix;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < prefix.length + 20) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return out;
}

export const newEventId = (): string => randomId('evt_');
export const newTimelineId = (): string => randomId('tl_');

/**
 * Ids are key parts: non-empty, bounded, no control characters (NUL separates key fields, \n the snapshot ids).
 * `what` names the id in the store's terms (`event id`); the API checks its fields before they get here.
 */
export function checkId(what: string, id: string): void {
  // No closure per call: a bulk load checks every id, and each closure cost about 1 µs (10^6 ids: 0.9 s).
  if (typeof id !== 'string' || id.length === 0) throw refusedId(what, id, 'must not be empty');
  if (id.length > MAX_ID_LENGTH) throw refusedId(what, id, `longer than ${MAX_ID_LENGTH} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(id)) throw refusedId(what, id, 'contains a control character');
}

function refusedId(what: string, id: string, problem: string): ApiError {
  return new ApiError('invalid_argument', `${what} ${JSON.stringify(id)}: ${problem}`);
}
