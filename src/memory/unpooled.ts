/**
 * Bytes in a buffer of exactly their size. Node cuts buffers under half its pool size out of shared slabs
 * (`Buffer.poolSize`: 8 KiB on Node 20, 64 KiB on Node 24), and a slice that is kept keeps its whole slab alive.
 * Bytes held for long (a cached reply, a credential's hash) are copied out first.
 */
export function unpooled(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  const own = Buffer.allocUnsafeSlow(bytes.byteLength);
  bytes.copy(own);
  return own;
}
