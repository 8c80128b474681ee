import { isUtf8 } from 'node:buffer';
import { configureTextEncoding } from '@bufbuild/protobuf/wire';

const strictDecoder = new TextDecoder('utf-8', { fatal: true });

/**
 * protobuf-es encodes every string with `TextEncoder.encode`, a fresh ArrayBuffer each; Node's `Buffer.from`
 * takes short strings from its pool, and encoding a 10-event search page to binary takes half the time
 * (docs/performance.md). The results are the same: unpaired surrogates become U+FFFD either way, bytes that
 * are not UTF-8 still fail in the WHATWG decoder with its error, and `isWellFormed` is the check that
 * `encodeURIComponent` stood for.
 */
export function useNodeTextEncoding(): void {
  configureTextEncoding({
    encodeUtf8: (text) => Buffer.from(text, 'utf8'),
    decodeUtf8: (bytes, strict) =>
      strict && !isUtf8(bytes) ? strictDecoder.decode(bytes) : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'),
    checkUtf8: (text) => text.isWellFormed(),
  });
}
