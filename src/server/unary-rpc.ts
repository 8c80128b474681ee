import { fromBinary, toBinary, toJson, toJsonString, type DescMethod, type DescService, type Message } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { tighterLimit, withDeadline } from '../api/deadline.ts';
import { encodedOnce, isReusable } from '../api/reusable-output.ts';
import { unpooled } from '../memory/unpooled.ts';
import { jsonToBinary } from './reply-encoding/binary.ts';
import { jsonReplyText } from './reply-encoding/json-text.ts';
import { toApiError, toConnectError } from './errors.ts';
import { authorizationHeader, dropBody } from './http-io.ts';
import { failedCall, invoke } from './invoke.ts';
import { RPC_JSON_OPTIONS, responseMessage } from './connect/rpc-services.ts';
import type { AnyRequest, AnyResponse } from './one-port.ts';
import type { RequestState } from './request-state.ts';
import type { InvokeDeps } from './invoke.ts';

/** Serves a unary RPC call and answers true, or answers false for connect-node to serve it. */
export type UnaryRpcHandler = (req: AnyRequest, res: AnyResponse, path: string, state: RequestState) => boolean;

export interface UnaryRpcOptions extends InvokeDeps {
  /** The unary methods served, by request path (`/tms.v1.EventService/SearchEvents`). */
  methods: ReadonlyMap<string, DescMethod>;
  /** The server's own limit; a client's shorter gRPC or Connect timeout wins. */
  requestTimeoutMs: number;
  /** The largest request message accepted, as connect-node's `readMaxBytes`. */
  readMaxBytes: number;
  /** Replies at least this long are compressed when the client accepts it, as connect-node's `compressMinBytes`. */
  compressMinBytes: number;
}

export function unaryMethodsByPath(services: readonly DescService[]): Map<string, DescMethod> {
  return new Map(
    services.flatMap((service) =>
      service.methods.filter((method) => method.methodKind === 'unary').map((method) => [`/${service.typeName}/${method.name}`, method] as const),
    ),
  );
}

/** The first handler that takes the call serves it. */
export const firstThatServes =
  (...handlers: UnaryRpcHandler[]): UnaryRpcHandler =>
  (req, res, path, state) =>
    handlers.some((handler) => handler(req, res, path, state));

/**
 * The call's output, through `invoke`, within the server's time limit or the client's shorter one. `body` is read
 * meanwhile, and decoded only once the caller is admitted: a caller turned away never awaits it.
 */
export function invokeUnary(
  options: UnaryRpcOptions,
  method: DescMethod,
  req: AnyRequest,
  state: RequestState,
  clientTimeoutMs: number | undefined,
  body: Promise<Uint8Array>,
  decode: (bytes: Uint8Array) => unknown,
): Promise<object> {
  body.catch(() => undefined);
  const call = { rpc: `${method.parent.typeName}.${method.name}`, authorization: authorizationHeader(req), client: state.client, state };
  return withDeadline(
    () => invoke(options, call, async () => decode(await body)),
    tighterLimit(options.requestTimeoutMs, clientTimeoutMs, state.protocol === 'connect' ? 'connect-timeout-ms' : 'grpc-timeout'),
  );
}

/**
 * The error a failed call answers with. A framing, timeout or decoding error is in connect-node's words and the
 * client's fault, so the log gets only its code.
 */
export function unaryError(state: RequestState, thrown: unknown): ConnectError {
  if (!(thrown instanceof ConnectError)) return toConnectError(failedCall(state, thrown));
  state.code = toApiError(thrown).code;
  return thrown;
}

type ReplyFormat = 'protobuf' | 'json';
interface ReplyForms {
  protobuf: object;
  json: object;
  /** The output straight to protobuf bytes or JSON text, without building its message (undefined: protobuf-es's way). */
  binary: (output: object) => Uint8Array | undefined;
  jsonText: (output: object) => string | undefined;
}
const replyForms = new WeakMap<DescMethod, ReplyForms>();

/** A reply's bytes; a reusable output (a search page served again) keeps them per method and format. */
export function replyBytes(method: DescMethod, format: ReplyFormat, output: object): Uint8Array {
  let forms = replyForms.get(method);
  if (!forms) replyForms.set(method, (forms = { protobuf: {}, json: {}, binary: jsonToBinary(method.output), jsonText: jsonReplyText(method.output) }));
  const { binary, jsonText } = forms;
  return encodedOnce(output, forms[format], () => {
    if (format === 'protobuf') {
      const bytes = binary(output);
      if (!bytes) return toBinary(method.output, responseMessage(method, output));
      // They may be cut from Node's shared pool, and a reusable output keeps them.
      return isReusable(output) ? unpooled(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)) : bytes;
    }
    return unpooled(Buffer.from(jsonText(output) ?? toJsonString(method.output, responseMessage(method, output), RPC_JSON_OPTIONS)));
  });
}

/** Stops reading a refused request body (the rest is read and dropped) and fails the read with `error`. */
export function refuseBody(req: AnyRequest, reject: (error: unknown) => void, error: ConnectError): void {
  dropBody(req);
  reject(error);
}

/**
 * The request's fields from protobuf bytes. Bytes that are not the message are the client's mistake:
 * `invalid_argument` in connect-node's words, where connect-node itself says `internal`, which would count a
 * client's bug as a server fault in the metrics.
 */
export function binaryFields(method: DescMethod, bytes: Uint8Array): unknown {
  let message: Message;
  try {
    message = fromBinary(method.input, bytes);
  } catch (error) {
    throw new ConnectError(`parse binary: ${error instanceof Error ? error.message : String(error)}`, Code.InvalidArgument);
  }
  return messageFields(method, message);
}

/** A request message's fields by proto field name, as operations take them. */
export const messageFields = (method: DescMethod, message: Message): unknown => toJson(method.input, message, { useProtoFieldName: true });
