/**
 * Bytes in a buffer of their own. Node cuts small buffers (`Buffer.from` of less than 4 KiB) out of shared
 * 8 KiB slabs, and a slice that is kept keeps its whole slab alive: bytes held for long (a cached reply, a
 * credential's hash) are copied out of the slab first.
 */
export function unpooled(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  const own = Buffer.allocUnsafeSlow(bytes.byteLength);
  bytes.copy(own);
  return own;
}
