import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { unpooled } from '../../src/memory/unpooled.ts';

test('a small buffer cut from the shared pool is copied into one of its own, byte for byte', () => {
  const pooled = Buffer.from('{"events":[]}');
  assert.ok(pooled.buffer.byteLength > pooled.byteLength, 'Node cut it from a larger slab');
  const own = unpooled(pooled);
  assert.is.not(own.buffer, pooled.buffer);
  assert.is(own.buffer.byteLength, own.byteLength);
  assert.is(own.byteOffset, 0);
  assert.is(own.toString(), '{"events":[]}');
});

test('a buffer that owns exactly its memory is returned as it is', () => {
  const own = Buffer.allocUnsafeSlow(16).fill(7);
  assert.is(unpooled(own), own);
});

test('a large buffer is kept at exactly its size, whatever Node allocated behind it', () => {
  // Node 20 gives these bytes a store of their own; Node 24 cuts them from its 64 KiB pool.
  const large = Buffer.from('x'.repeat(10_000));
  const kept = unpooled(large);
  assert.is(kept.buffer.byteLength, 10_000);
  assert.ok(kept.equals(large));
  if (large.buffer.byteLength === large.byteLength) assert.is(kept, large, 'not copied when already exact');
});

test.run();
