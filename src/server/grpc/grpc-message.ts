import type { OutgoingHttpHeaders } from 'node:http';
import type { AnyResponse } from '../one-port.ts';

const GRPC_MESSAGE = 'grpc-message';

/**
 * `grpc-message` as the gRPC protocol percent-encodes it: only bytes outside printable ASCII, and `%`. connect-es
 * encodes with `encodeURIComponent`, which also escapes `:` `/` `,` and more; grpc-js decodes with `decodeURI`,
 * which leaves those escaped, so its users read `time_range%3A …`. Every decoder reads this form whole.
 */
export function encodeGrpcMessage(text: string): string {
  let plain = true;
  for (let i = 0; i < text.length && plain; i++) {
    const code = text.charCodeAt(i);
    plain = code >= 0x20 && code <= 0x7e && code !== 0x25;
  }
  if (plain) return text;
  let encoded = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    encoded += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}

/** Headers or trailers with their `grpc-message` (written by connect-es's `encodeURIComponent`) in the protocol's encoding. */
export function withGrpcMessageEncoded<T extends OutgoingHttpHeaders | Record<string, string>>(headers: T): T {
  const message = headers[GRPC_MESSAGE];
  if (typeof message !== 'string') return headers;
  return { ...headers, [GRPC_MESSAGE]: encodeGrpcMessage(decodeURIComponent(message)) };
}

/** Answers connect-node writes for a call: their status message, in the head or in trailers, encoded as above. */
export function encodeGrpcMessagesOf(res: AnyResponse): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: AnyResponse, status: number, ...rest: unknown[]) {
    const last = rest.length - 1;
    if (last >= 0 && typeof rest[last] === 'object' && rest[last] !== null && !Array.isArray(rest[last])) {
      rest[last] = withGrpcMessageEncoded(rest[last] as OutgoingHttpHeaders);
    }
    return (writeHead as (...a: unknown[]) => AnyResponse).call(this, status, ...rest);
  } as typeof res.writeHead;
  const addTrailers = res.addTrailers;
  res.addTrailers = function (this: AnyResponse, trailers: OutgoingHttpHeaders) {
    (addTrailers as (t: OutgoingHttpHeaders) => void).call(this, withGrpcMessageEncoded(trailers));
  } as typeof res.addTrailers;
}
