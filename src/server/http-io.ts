import { isUtf8 } from 'node:buffer';
import type { AnyRequest, AnyResponse } from './one-port.ts';
import { invalidArgument, type ApiError } from '../domain/errors.ts';
import { isReusable } from '../api/reusable-output.ts';
import { unpooled } from '../memory/unpooled.ts';
import { BEARER_CHALLENGE, REQUEST_BODY, bodyTooLarge, errorBody, httpStatusFor, retryAfterSeconds } from './errors.ts';

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
  if (error.code === 'unauthenticated') headers['www-authenticate'] = BEARER_CHALLENGE;
  sendJson(res, httpStatusFor(error), errorBody(error), headers);
}

/**
 * An HTTP/1.1 answer sent before the request body has arrived leaves the connection mid-request: it cannot carry
 * another one, so it is closed after the answer.
 */
export function closeIfBodyUnread(req: AnyRequest): Record<string, string> {
  return req.httpVersionMajor === 1 && !req.complete ? { connection: 'close' } : {};
}

/** Stops reading a request body that will not be used: the rest is read and dropped. */
export function dropBody(req: AnyRequest): void {
  req.removeAllListeners('data');
  req.resume();
}

/**
 * Reads the whole body. One over `limit`, as declared or as it arrives, is not buffered: it fails with `tooLarge`
 * (given the declared length when that was over) and the rest is dropped.
 */
export function readBody(req: AnyRequest, limit: number, tooLarge: (declared?: number) => unknown = () => bodyTooLarge(limit)): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  return new Promise((resolve, reject) => {
    const refuse = (error: unknown): void => {
      dropBody(req);
      reject(error);
    };
    if (declared > limit) {
      refuse(tooLarge(declared));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) refuse(tooLarge());
      else chunks.push(chunk);
    });
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

export function headerValue(req: AnyRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}


/**
 * The request's credential. Node keeps the first of two `Authorization` headers and drops the other; which one a
 * client meant is a guess, so two are refused.
 */
export function authorizationHeader(req: AnyRequest): string | undefined {
  const raw = req.rawHeaders;
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 13 && raw[i]!.toLowerCase() === 'authorization') seen++;
  if (seen > 1) throw invalidArgument('Authorization', 'given more than once; send one credential');
  return headerValue(req, 'authorization');
}

/** A request body's text; bytes that are not UTF-8 are refused, where decoding would replace them with U+FFFD. */
export function utf8Text(bytes: Uint8Array): string {
  if (!isUtf8(bytes)) throw invalidArgument(REQUEST_BODY, 'not valid UTF-8');
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}
