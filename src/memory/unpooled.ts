/**
 * Bytes in a buffer of exactly their size. Node cuts small buffers (`Buffer.from` of less than 4 KiB) out of
 * shared 8 KiB slabs, and Node 24 encodes a longer string into a 64 KiB store; a buffer that is kept keeps all of
 * that alive. Bytes held for long (a cached reply, a credential's hash) are copied out first.
 */
export function unpooled(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  const own = Buffer.allocUnsafeSlow(bytes.byteLength);
  bytes.copy(own);
  return own;
}
