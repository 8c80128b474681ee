import type { AnyRequest, AnyResponse } from './one-port.ts';
import type { ApiError } from '../domain/errors.ts';
import { isReusable } from '../api/reusable-output.ts';
import { unpooled } from '../memory/unpooled.ts';
import { bodyTooLarge, errorBody, httpStatusFor, retryAfterSeconds } from './errors.ts';

const encoded = new WeakMap<object, string | Buffer>();

/**
 * The body's bytes. A reusable body never changes, so its encoding is kept for the next response that sends
 * it: its JSON text the first time, its UTF-8 bytes from the second (then no encoding, no conversion, no
 * length count). A body sent once is written as text, which the socket converts without a Buffer of its own.
 */
function jsonBytes(body: unknown): string | Buffer {
  if (typeof body === 'string') return body;
  if (!isReusable(body)) return JSON.stringify(body);
  const kept = encoded.get(body);
  if (kept === undefined) {
    const text = JSON.stringify(body);
    encoded.set(body, text);
    return text;
  }
  if (typeof kept !== 'string') return kept;
  const bytes = unpooled(Buffer.from(kept));
  encoded.set(body, bytes);
  return bytes;
}

export function sendJson(res: AnyResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const bytes = jsonBytes(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(typeof bytes === 'string' ? Buffer.byteLength(bytes) : bytes.length),
    ...headers,
  });
  res.end(bytes);
}

export function sendError(res: AnyResponse, error: ApiError, headers: Record<string, string> = {}): void {
  const retryAfter = retryAfterSeconds(error);
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  sendJson(res, httpStatusFor(error), errorBody(error), headers);
}

/**
 * An HTTP/1.1 answer sent before the request body has arrived leaves the connection mid-request: it cannot carry
 * another one, so it is closed after the answer.
 */
export function closeIfBodyUnread(req: AnyRequest): Record<string, string> {
  return req.httpVersionMajor === 1 && !req.complete ? { connection: 'close' } : {};
}

/** Reads the whole body, refusing (413) anything over the limit without buffering it. */
export function readBody(req: AnyRequest, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.reject(bodyTooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(bodyTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

export function clientAddress(req: AnyRequest): string {
  return req.socket?.remoteAddress ?? 'unknown';
}

export function headerValue(req: AnyRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
