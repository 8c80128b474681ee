import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { DescMethod } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { parseTimeout } from '@connectrpc/connect/protocol-grpc';
import type { AnyRequest, AnyResponse } from '../one-port.ts';
import type { RequestState } from '../request-state.ts';
import { headerValue } from '../http-io.ts';
import { sendGrpcStatus } from './status-reply.ts';
import { binaryFields, invokeUnary, refuseBody, replyBytes, unaryError, type UnaryRpcHandler, type UnaryRpcOptions } from '../unary-rpc.ts';

const HEADER_BYTES = 5;
const COMPRESSED = 0b1;
const PLAIN_GRPC = /^application\/grpc(?:\+proto)?$/i;
const gzipped = promisify(gzip);

/**
 * Plain unary gRPC (binary, uncompressed request, HTTP/2), the calls backend services make, served without
 * connect-node's streaming machinery: one envelope in, one out, through the same `invoke` every face uses.
 * Every other gRPC call (compressed requests, health, reflection, streams) and every other protocol go to
 * connect-node, whose answers this matches: the same status codes, messages and trailers.
 */
export function createGrpcUnary(options: UnaryRpcOptions): UnaryRpcHandler {
  return (req, res, path, state) => {
    const method = options.methods.get(path);
    if (method === undefined || req.httpVersionMajor !== 2) return false;
    if (!PLAIN_GRPC.test(headerValue(req, 'content-type') ?? '')) return false;
    const encoding = headerValue(req, 'grpc-encoding');
    if (encoding !== undefined && encoding !== 'identity') return false;
    state.protocol = 'grpc';
    state.route = `${method.parent.typeName}.${method.name}`;
    serve(options, method, req, res, state).catch((thrown: unknown) => {
      // Only a broken connection gets here; the request log records it as canceled.
      res.destroy(thrown instanceof Error ? thrown : undefined);
    });
    return true;
  };
}

async function serve(options: UnaryRpcOptions, method: DescMethod, req: AnyRequest, res: AnyResponse, state: RequestState): Promise<void> {
  const acceptsGzip = (headerValue(req, 'grpc-accept-encoding') ?? '').split(',').some((name) => name.trim() === 'gzip');
  try {
    const timeout = parseTimeout(headerValue(req, 'grpc-timeout') ?? null, Number.MAX_SAFE_INTEGER);
    if (timeout.error) {
      req.resume();
      throw timeout.error;
    }
    const message = readMessage(req, options.readMaxBytes);
    const output = await invokeUnary(options, method, req, state, timeout.timeoutMs, message, (bytes) => binaryFields(method, bytes));
    const reply = replyBytes(method, 'protobuf', output);
    const compressed = acceptsGzip && reply.length >= options.compressMinBytes;
    const data = compressed ? await gzipped(reply) : reply;
    state.code = 'ok';
    res.writeHead(200, { 'content-type': 'application/grpc+proto', ...(compressed && { 'grpc-encoding': 'gzip' }) });
    res.addTrailers({ 'grpc-status': '0' });
    res.end(envelope(compressed ? COMPRESSED : 0, data));
  } catch (thrown) {
    sendGrpcStatus(res, 2, 'application/grpc+proto', unaryError(state, thrown));
  }
}

/**
 * The request's one enveloped message, refused as soon as its header declares more than the limit or more
 * bytes follow it than it declared: nothing beyond one message of the limit is ever held.
 */
function readMessage(req: AnyRequest, limit: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let declared: number | undefined;
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (declared === undefined && size >= HEADER_BYTES) {
        declared = (chunks.length === 1 ? chunk : Buffer.concat(chunks)).readUInt32BE(1);
        if (declared > limit) refuseBody(req, reject, new ConnectError(`message size ${declared} is larger than configured readMaxBytes ${limit}`, Code.ResourceExhausted));
      }
      if (declared !== undefined && declared <= limit && size > HEADER_BYTES + declared) refuseBody(req, reject, extraMessage());
    });
    req.once('end', () => {
      const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      try {
        resolve(unwrap(bytes));
      } catch (error) {
        reject(error as Error);
      }
    });
    req.once('error', reject);
  });
}

const extraMessage = () => new ConnectError('protocol error: received extra input message for unary method', Code.Unimplemented);

function unwrap(bytes: Buffer): Uint8Array {
  if (bytes.length === 0) throw new ConnectError('protocol error: missing input message for unary method', Code.Unimplemented);
  if (bytes.length < HEADER_BYTES) throw new ConnectError('protocol error: incomplete envelope', Code.InvalidArgument);
  const end = HEADER_BYTES + bytes.readUInt32BE(1);
  if (bytes.length < end) throw new ConnectError('protocol error: incomplete envelope', Code.InvalidArgument);
  if (bytes.length > end) throw extraMessage();
  if (bytes[0]! & COMPRESSED) throw new ConnectError('received compressed envelope, but do not know how to decompress', Code.Internal);
  return bytes.subarray(HEADER_BYTES);
}

function envelope(flags: number, data: Uint8Array): Buffer {
  const bytes = Buffer.allocUnsafe(HEADER_BYTES + data.length);
  bytes[0] = flags;
  bytes.writeUInt32BE(data.length, 1);
  bytes.set(data, HEADER_BYTES);
  return bytes;
}
