import type { Instant } from './instant.ts';

/** Bytes of an encoded instant key: 8 for the seconds, 4 for the nanoseconds. */
export const INSTANT_KEY_BYTES = 12;

const TWO_POW_32 = 2 ** 32;
const SIGN_BIT = 0x8000_0000;
// Above this the high word no longer fits the exact Number path.
const SAFE_HIGH_WORD = 2 ** 20;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function writeUint32(target: Uint8Array, offset: number, value: number): void {
  target[offset] = value >>> 24;
  target[offset + 1] = (value >>> 16) & 0xff;
  target[offset + 2] = (value >>> 8) & 0xff;
  target[offset + 3] = value & 0xff;
}

function readUint32(bytes: Uint8Array, offset: number): number {
  return ((bytes[offset]! << 24) | (bytes[offset + 1]! << 16) | (bytes[offset + 2]! << 8) | bytes[offset + 3]!) >>> 0;
}

/**
 * Writes a 12-byte key whose byte order is time order for every instant: the seconds as a big-endian
 * int64 with the sign bit flipped (so negatives sort first), then the nanoseconds as a big-endian uint32.
 * `fractionDigits` is not stored. Returns `target` (a new 12-byte array when none is given).
 */
export function encodeInstantKey(instant: Instant, target?: Uint8Array, offset = 0): Uint8Array {
  const bytes = target ?? new Uint8Array(INSTANT_KEY_BYTES);
  if (offset < 0 || offset + INSTANT_KEY_BYTES > bytes.length) {
    throw new RangeError(`an instant key needs ${INSTANT_KEY_BYTES} bytes at offset ${offset} of a ${bytes.length}-byte array`);
  }
  const { seconds, nanos } = instant;
  if (seconds < INT64_MIN || seconds > INT64_MAX) throw new RangeError(`seconds ${seconds} do not fit an int64 key`);
  if (!Number.isInteger(nanos) || nanos < 0 || nanos > 999_999_999) throw new RangeError(`nanos ${nanos} out of range 0..999999999`);
  if (seconds <= MAX_SAFE && seconds >= -MAX_SAFE) {
    writeSafeInstantKey(Number(seconds), nanos, bytes, offset);
    return bytes;
  }
  const unsigned = BigInt.asUintN(64, seconds);
  writeUint32(bytes, offset, ((Number(unsigned >> 32n) | 0) ^ SIGN_BIT) >>> 0);
  writeUint32(bytes, offset + 4, Number(unsigned & 0xffff_ffffn));
  writeUint32(bytes, offset + 8, nanos);
  return bytes;
}

/**
 * encodeInstantKey's bytes for whole seconds within ±2^53 given as a number, and valid nanoseconds, which the
 * caller vouches for (an index that holds only such instants): no checks, no BigInt.
 */
export function writeSafeInstantKey(seconds: number, nanos: number, target: Uint8Array, offset: number): void {
  const high = Math.floor(seconds / TWO_POW_32);
  writeUint32(target, offset, (high ^ SIGN_BIT) >>> 0);
  writeUint32(target, offset + 4, seconds - high * TWO_POW_32);
  writeUint32(target, offset + 8, nanos);
}

/** Reads a key written by encodeInstantKey. The precision sent is not stored, so `fractionDigits` is 9. */
export function decodeInstantKey(bytes: Uint8Array, offset = 0): Instant {
  if (offset < 0 || offset + INSTANT_KEY_BYTES > bytes.length) {
    throw new RangeError(`an instant key needs ${INSTANT_KEY_BYTES} bytes at offset ${offset} of a ${bytes.length}-byte array`);
  }
  const high = (readUint32(bytes, offset) ^ SIGN_BIT) | 0;
  const low = readUint32(bytes, offset + 4);
  const nanos = readUint32(bytes, offset + 8);
  if (nanos > 999_999_999) throw new RangeError(`corrupt instant key: nanos ${nanos} out of range`);
  const seconds =
    high < SAFE_HIGH_WORD && high > -SAFE_HIGH_WORD
      ? BigInt(high * TWO_POW_32 + low)
      : (BigInt(high) << 32n) | BigInt(low);
  return { seconds, nanos, fractionDigits: 9 };
}
