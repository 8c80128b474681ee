import { promisify } from 'node:util';
import { brotliCompress, gzip } from 'node:zlib';
import { fromJsonString, type DescMethod, type Message } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { codeToHttpStatus, errorToJsonBytes, parseTimeout } from '@connectrpc/connect/protocol-connect';
import type { AnyRequest, AnyResponse } from '../one-port.ts';
import type { RequestState } from '../request-state.ts';
import { binaryFields, invokeUnary, messageFields, replyBytes, unaryError, type UnaryRpcHandler, type UnaryRpcOptions } from '../unary-rpc.ts';
import { closeIfBodyUnread, headerValue, readBody, sendError, utf8Text } from '../http-io.ts';
import { REQUEST_BODY, unsupportedContentType } from '../errors.ts';
import { jsonRequestFields, unknownFieldPath, unreadableField } from './json-request.ts';
import { RPC_JSON_OPTIONS } from './rpc-services.ts';
import { invalidArgument } from '../../domain/errors.ts';

const UNARY_JSON = /^application\/json(?:; ?charset=utf-?8)?$/i;
const UNARY_PROTO = /^application\/proto$/i;
/** Connect's streaming content types, which a unary method does not take (connect-node answers them a bare 415). */
const STREAMING_CONNECT = /^application\/connect\+/i;
const compressors = { gzip: promisify(gzip), br: promisify(brotliCompress) } as const;
type Encoding = keyof typeof compressors;
/** protobuf-es's words for a JSON member that names no field of its message. */
const UNKNOWN_KEY = /: key ".*" is unknown$/;

/**
 * Connect unary calls (JSON or binary, an uncompressed request body) served without connect-node's handler
 * pipeline, through the same `invoke` every face uses. A compressed request body goes to connect-node. Both
 * answer alike: connect-node's codec, status codes, messages and error JSON.
 */
export function createConnectUnary(options: UnaryRpcOptions): UnaryRpcHandler {
  return (req, res, path, state) => {
    const method = options.methods.get(path);
    if (method === undefined) return false;
    const contentType = headerValue(req, 'content-type') ?? '';
    const binary = UNARY_PROTO.test(contentType);
    if (STREAMING_CONNECT.test(contentType)) {
      state.protocol = 'connect';
      state.route = `${method.parent.typeName}.${method.name}`;
      state.code = 'invalid_argument';
      sendError(res, unsupportedContentType(`application/json or application/proto (${method.name} is unary)`, contentType), closeIfBodyUnread(req));
      return true;
    }
    if (!binary && !UNARY_JSON.test(contentType)) return false;
    const encoding = headerValue(req, 'content-encoding');
    if (encoding !== undefined && encoding !== 'identity') return false;
    state.protocol = 'connect';
    state.route = `${method.parent.typeName}.${method.name}`;
    serve(options, method, binary, req, res, state).catch((thrown: unknown) => res.destroy(thrown instanceof Error ? thrown : undefined));
    return true;
  };
}

async function serve(options: UnaryRpcOptions, method: DescMethod, binary: boolean, req: AnyRequest, res: AnyResponse, state: RequestState): Promise<void> {
  const encoding = responseEncoding(headerValue(req, 'accept-encoding'));
  let status = 200;
  let body: Uint8Array;
  const headers: Record<string, string> = {};
  try {
    const timeout = parseTimeout(headerValue(req, 'connect-timeout-ms') ?? null, Number.MAX_SAFE_INTEGER);
    if (timeout.error) throw timeout.error;
    const requestBody = readBody(req, options.readMaxBytes, tooLarge(options.readMaxBytes));
    const output = await invokeUnary(options, method, req, state, timeout.timeoutMs, requestBody, (bytes) => (binary ? binaryFields(method, bytes) : jsonFields(method, bytes)));
    body = replyBytes(method, binary ? 'protobuf' : 'json', output);
    state.code = 'ok';
    headers['content-type'] = binary ? 'application/proto' : 'application/json';
  } catch (thrown) {
    const error = unaryError(state, thrown);
    status = codeToHttpStatus(error.code);
    error.metadata.forEach((value, name) => (headers[name] = value));
    headers['content-type'] = 'application/json';
    Object.assign(headers, closeIfBodyUnread(req));
    body = errorToJsonBytes(error, RPC_JSON_OPTIONS);
  }
  if (encoding && body.length >= options.compressMinBytes) {
    body = await compressors[encoding](body);
    headers['content-encoding'] = encoding;
  }
  headers['content-length'] = String(body.length);
  res.writeHead(status, headers);
  res.end(body);
}

/** connect-node's choice: the first encoding the client lists that it has. */
function responseEncoding(accepted: string | undefined): Encoding | undefined {
  for (const name of (accepted ?? '').split(',')) {
    const trimmed = name.trim();
    if (trimmed === 'gzip' || trimmed === 'br') return trimmed;
  }
  return undefined;
}

/** connect-node's words for a body over the limit. */
const tooLarge = (limit: number) => (declared?: number) =>
  new ConnectError(`message size ${declared === undefined ? '' : `${declared} `}is larger than configured readMaxBytes ${limit}`, Code.ResourceExhausted);

const jsonReaders = new WeakMap<DescMethod, (text: string) => Record<string, unknown> | undefined>();

/** The request's fields from a JSON body: read directly where it is plain, otherwise by protobuf-es. */
function jsonFields(method: DescMethod, bytes: Uint8Array): unknown {
  const text = utf8Text(bytes);
  let reader = jsonReaders.get(method);
  if (!reader) jsonReaders.set(method, (reader = jsonRequestFields(method.input)));
  return reader(text) ?? messageFields(method, readJson(method, text));
}

/**
 * The message protobuf-es reads. What it cannot read is refused naming the member by its path, as REST names it: a
 * member that names no field, or one whose value does not fit its field.
 */
function readJson(method: DescMethod, text: string): Message {
  try {
    return fromJsonString(method.input, text);
  } catch (error) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (notJson) {
      throw invalidArgument(REQUEST_BODY, `not valid JSON (${(notJson as Error).message})`);
    }
    if (json === null || typeof json !== 'object' || Array.isArray(json)) throw invalidArgument(REQUEST_BODY, 'must be a JSON object');
    const unknown = UNKNOWN_KEY.test((error as Error).message) ? unknownFieldPath(method.input, json) : undefined;
    if (unknown) throw invalidArgument(unknown, 'unknown field');
    const unreadable = unreadableField(method.input, json);
    if (unreadable) throw invalidArgument(unreadable.field, unreadable.problem);
    throw ConnectError.from(error, Code.InvalidArgument);
  }
}
