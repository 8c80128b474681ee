import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Instant } from '../../src/time/index.ts';
import { compareInstants, decodeInstantKey, encodeInstantKey, INSTANT_KEY_BYTES, parseInstant, writeSafeInstantKey } from '../../src/time/index.ts';
import { instantArbitrary } from './arbitraries.ts';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Math.sign(Buffer.compare(a, b));
}

const edgeSeconds = [INT64_MIN, INT64_MIN + 1n, -(2n ** 53n) - 1n, -(2n ** 53n), -(2n ** 32n), -1n, 0n, 1n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 53n, 2n ** 53n + 1n, INT64_MAX];

// Every int64 second, with a bias toward the edges where the encoding switches paths or signs.
const anyKeyInstant: fc.Arbitrary<Instant> = fc.oneof(
  instantArbitrary,
  fc.record({ seconds: fc.bigInt(INT64_MIN, INT64_MAX), nanos: fc.integer({ min: 0, max: 999_999_999 }), fractionDigits: fc.constant(9) }),
  fc.record({ seconds: fc.constantFrom(...edgeSeconds), nanos: fc.constantFrom(0, 1, 999_999_999), fractionDigits: fc.constant(9) }),
);

test('byte order of keys equals compareInstants order on random pairs', () => {
  fc.assert(
    fc.property(anyKeyInstant, anyKeyInstant, (a, b) => {
      assert.is(compareBytes(encodeInstantKey(a), encodeInstantKey(b)), compareInstants(a, b));
    }),
    { numRuns: 20_000 },
  );
});

test('decode(encode(i)) gives i back with nine fraction digits', () => {
  fc.assert(
    fc.property(anyKeyInstant, (instant) => {
      const key = encodeInstantKey(instant);
      assert.is(key.length, INSTANT_KEY_BYTES);
      assert.equal(decodeInstantKey(key), { seconds: instant.seconds, nanos: instant.nanos, fractionDigits: 9 });
    }),
    { numRuns: 10_000 },
  );
});

test('the edges sort in order, including across the epoch and the sign bit', () => {
  const keys = edgeSeconds.map((seconds) => encodeInstantKey({ seconds, nanos: 0, fractionDigits: 0 }));
  for (let i = 1; i < keys.length; i += 1) assert.is(compareBytes(keys[i - 1]!, keys[i]!), -1, `${edgeSeconds[i - 1]} < ${edgeSeconds[i]}`);
});

test('a known key: the layout is sign-flipped big-endian seconds, then big-endian nanos', () => {
  assert.is(Buffer.from(encodeInstantKey({ seconds: 0n, nanos: 0, fractionDigits: 0 })).toString('hex'), '800000000000000000000000');
  assert.is(Buffer.from(encodeInstantKey({ seconds: -1n, nanos: 1, fractionDigits: 9 })).toString('hex'), '7fffffffffffffff00000001');
  const ides = parseInstant('-000044-03-15T12:00:00.5Z');
  assert.is(Buffer.from(encodeInstantKey(ides)).toString('hex'), '7ffffff1342a61401dcd6500');
});

test('writes into a given buffer at an offset and reads back from there', () => {
  const buffer = new Uint8Array(4 + INSTANT_KEY_BYTES + 4).fill(0xaa);
  const instant = parseInstant('2024-05-01T12:30:40.120Z');
  const returned = encodeInstantKey(instant, buffer, 4);
  assert.is(returned, buffer);
  assert.equal([...buffer.subarray(0, 4)], [0xaa, 0xaa, 0xaa, 0xaa]);
  assert.equal([...buffer.subarray(16)], [0xaa, 0xaa, 0xaa, 0xaa]);
  assert.is(compareInstants(decodeInstantKey(buffer, 4), instant), 0);
});

test('the key written from seconds held as a number is the same, within ±2^53 and at its edges', () => {
  const safeSeconds = fc.oneof(
    fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
    fc.constantFrom(Number.MIN_SAFE_INTEGER, -(2 ** 32), -1, 0, 1, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER),
  );
  fc.assert(
    fc.property(safeSeconds, fc.integer({ min: 0, max: 999_999_999 }), (seconds, nanos) => {
      const written = new Uint8Array(2 + INSTANT_KEY_BYTES).fill(0xaa);
      writeSafeInstantKey(seconds, nanos, written, 2);
      const expected = encodeInstantKey({ seconds: BigInt(seconds), nanos, fractionDigits: 9 });
      assert.equal([...written.subarray(2)], [...expected]);
      assert.equal([...written.subarray(0, 2)], [0xaa, 0xaa]);
    }),
    { seed: 20261126, numRuns: 2000 },
  );
});

test('refuses a buffer too small, seconds beyond int64 and nanos out of range', () => {
  assert.throws(() => encodeInstantKey({ seconds: 0n, nanos: 0, fractionDigits: 0 }, new Uint8Array(12), 1), /needs 12 bytes/);
  assert.throws(() => decodeInstantKey(new Uint8Array(11)), /needs 12 bytes/);
  assert.throws(() => encodeInstantKey({ seconds: INT64_MAX + 1n, nanos: 0, fractionDigits: 0 }), /int64/);
  assert.throws(() => encodeInstantKey({ seconds: 0n, nanos: 1_000_000_000, fractionDigits: 9 }), /nanos/);
  assert.throws(() => decodeInstantKey(new Uint8Array(12).fill(0xff)), /corrupt/);
});

test.run();
