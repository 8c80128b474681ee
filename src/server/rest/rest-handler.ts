import type { AnyRequest, AnyResponse } from '../one-port.ts';
import type { RequestState } from '../request-state.ts';
import type { RestRoute } from './routes.ts';
import { ApiError, invalidArgument } from '../../domain/errors.ts';
import { failedCall, invoke, type InvokeDeps } from '../invoke.ts';
import { startDeadline, type Deadline } from '../../api/deadline.ts';
import { REQUEST_BODY, unsupportedContentEncoding, unsupportedContentType } from '../errors.ts';
import { namesAMemberTwice, repeatedMemberPath, unpairedSurrogatePath } from '../json-members.ts';
import { authorizationHeader, closeIfBodyUnread, headerValue, readBody, sendError, sendJson, utf8Text } from '../http-io.ts';

export interface RestDeps extends InvokeDeps {
  bodyLimitBytes: number;
  requestTimeoutMs: number;
}

/** Decode → gate → operation → encode. Everything route-specific lives in the route table and the operation. */
export async function serveRest(
  req: AnyRequest,
  res: AnyResponse,
  route: RestRoute,
  params: Record<string, string>,
  query: string,
  state: RequestState,
  deps: RestDeps,
): Promise<void> {
  let deadline: Deadline | undefined;
  state.route = route.rpc;
  try {
    // The deadline covers the gate (whose checks may wait on the database) and reading the body, which a client
    // trickling it cannot make longer.
    const limit = startDeadline(deps.requestTimeoutMs, (error) => answerError(res, state, error, closeIfBodyUnread(req)));
    deadline = limit;
    const call = { rpc: route.rpc, authorization: authorizationHeader(req), client: state.client, state };
    const output = await invoke(deps, call, async () => {
      // Answered by the deadline while the gate waited: the operation is not started.
      if (limit.expired) throw new ApiError('deadline_exceeded', 'answered by its deadline before the operation began');
      const readsQuery = route.method === 'GET' || route.method === 'DELETE';
      if (query && !readsQuery) refuseQuery(route.method, query);
      // A body this route cannot read is refused before it is read.
      if (declaresBody(req)) checkBodyHeaders(req);
      const raw = await readBody(req, deps.bodyLimitBytes);
      if (raw.length > 0) checkBodyHeaders(req);
      const body = parseJsonBody(raw);
      return mergeFields(body, readsQuery ? query : '', params);
    });
    if (deadline?.expired) return;
    deadline?.clear();
    state.code = 'ok';
    sendJson(res, 200, output, { 'x-request-id': state.requestId });
  } catch (thrown) {
    if (deadline?.expired) return;
    deadline?.clear();
    // Refused before its body was read (the key, the declared size, the rate limit): the body is not drained.
    answerError(res, state, thrown, closeIfBodyUnread(req));
  }
}

/**
 * A POST takes its fields from the JSON body only. A field put in the query string instead is refused rather than
 * ignored: `?timeline_id=…` must not leave a write to fall back to primary.
 */
function refuseQuery(method: string, query: string): never {
  const name = queryFields(query)[0]?.[0] || 'query string';
  throw invalidArgument(name, `${method} routes read their fields from the JSON body only, not from the query string; send it in the body`);
}

function answerError(res: AnyResponse, state: RequestState, thrown: unknown, headers: Record<string, string> = {}): void {
  sendError(res, failedCall(state, thrown), { 'x-request-id': state.requestId, ...headers });
}

/** HTTP/1.1 says so ahead; an HTTP/2 body may come without a length, and is checked once it has come. */
const declaresBody = (req: AnyRequest): boolean =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/** A `charset` other than UTF-8's names: the body is read as UTF-8 (JSON's one encoding, RFC 8259). */
const OTHER_CHARSET = /;\s*charset\s*=(?!\s*"?utf-?8"?\s*(?:;|$))/i;

/** A body is JSON in UTF-8, sent as it is: any other `Content-Type` or charset, or a `Content-Encoding`, is 415. */
function checkBodyHeaders(req: AnyRequest): void {
  const contentType = headerValue(req, 'content-type');
  if (contentType && !/^application\/(.+\+)?json\b/i.test(contentType)) throw unsupportedContentType('application/json', contentType);
  if (contentType && OTHER_CHARSET.test(contentType)) throw unsupportedContentType('application/json in UTF-8 (charset=utf-8, or none)', contentType);
  const contentEncoding = headerValue(req, 'content-encoding');
  if (contentEncoding && contentEncoding.trim().toLowerCase() !== 'identity') throw unsupportedContentEncoding(contentEncoding);
}

/**
 * The body as one JSON object, refused by name where `JSON.parse` would take it with a loss: bytes that are not
 * UTF-8 (it would replace them), a member named twice in one object (it would keep the last), and an unpaired
 * surrogate, which the answer's UTF-8 and protobuf cannot carry.
 */
function parseJsonBody(raw: Buffer): Record<string, unknown> {
  if (raw.length === 0) return {};
  const text = utf8Text(raw);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalidArgument(REQUEST_BODY, `not valid JSON (${(error as Error).message})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidArgument(REQUEST_BODY, 'must be a JSON object');
  }
  if (namesAMemberTwice(text, value)) throw invalidArgument(repeatedMemberPath(text) ?? REQUEST_BODY, 'given twice in one object of the body');
  const unpaired = unpairedSurrogatePath(text, value);
  if (unpaired !== undefined) throw invalidArgument(unpaired || REQUEST_BODY, 'holds an unpaired surrogate (a lone \\ud800–\\udfff escape), which UTF-8 cannot carry');
  return value as Record<string, unknown>;
}

/** Body, query string and path parameters are one set of fields; the same field given twice must agree. */
function mergeFields(body: Record<string, unknown>, query: string, params: Record<string, string>): Record<string, unknown> {
  if (!query && Object.keys(params).length === 0) return body;
  const fields: Record<string, unknown> = { ...body };
  const givenIn = new Map<string, string>(Object.keys(body).map((name) => [name, 'body']));
  const add = (name: string, value: string, where: string) => {
    const earlier = givenIn.get(name);
    if (earlier === undefined) {
      fields[name] = value;
      givenIn.set(name, where);
    } else if (fields[name] !== value) {
      throw invalidArgument(name, earlier === where ? `given twice in the ${where} with different values` : `given in the ${earlier} and the ${where} with different values`);
    }
  };
  if (query) for (const [name, value] of queryFields(query)) add(name, value, 'query string');
  for (const [name, escaped] of Object.entries(params)) add(name, percentDecoded(escaped, name), 'path');
  return fields;
}

/**
 * The query string's fields, read as URLSearchParams reads them, except that an escape that is not UTF-8 (`%FF`) or
 * not an escape (`%`, `%zz`) is refused naming its field, as it is in a path: URLSearchParams would read it as U+FFFD
 * or as itself.
 */
function queryFields(query: string): [string, string][] {
  const fields: [string, string][] = [];
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = queryText(equals === -1 ? pair : pair.slice(0, equals), 'query string');
    fields.push([name, queryText(equals === -1 ? '' : pair.slice(equals + 1), name)]);
  }
  return fields;
}

const queryText = (escaped: string, field: string): string => percentDecoded(escaped.replaceAll('+', ' '), field);

function percentDecoded(escaped: string, field: string): string {
  try {
    return decodeURIComponent(escaped);
  } catch {
    throw invalidArgument(field, 'not valid percent-encoded UTF-8 (each % must begin an escape of UTF-8 bytes)');
  }
}
