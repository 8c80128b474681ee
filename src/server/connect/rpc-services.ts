import { ConnectError, createContextKey, type ConnectRouter, type HandlerContext, type Interceptor, type ServiceImpl } from '@connectrpc/connect';
import { fromJson, toJson, type DescMethod, type DescService, type JsonValue, type Message } from '@bufbuild/protobuf';
import { rpcProtocolOf, type RequestState } from '../request-state.ts';
import { tighterLimit, withDeadline } from '../../api/deadline.ts';
import { encodedOnce } from '../../api/reusable-output.ts';
import { codeName, toConnectError } from '../errors.ts';
import { failedCall, invoke, type InvokeDeps } from '../invoke.ts';

/**
 * Connect JSON uses the spec's snake_case names, exactly as REST does, and shows every field. A request member
 * that names no field is refused, as REST refuses it (connect-node would ignore it).
 */
export const RPC_JSON_OPTIONS = { useProtoFieldName: true, alwaysEmitImplicit: true, ignoreUnknownFields: false } as const;

/** Per-request values the Node adapter hands to every RPC handler. */
export const requestStateKey = createContextKey<RequestState | undefined>(undefined);

/**
 * The gRPC / gRPC-Web / Connect face: each RPC of each service decodes its message into the operation's
 * snake_case input, runs the same operation the REST route runs, and encodes the result as the response.
 */
export interface RpcServiceOptions extends InvokeDeps {
  /** The server's own limit; a client's shorter gRPC/Connect timeout wins. */
  requestTimeoutMs: number;
}

export function registerRpcServices(router: ConnectRouter, services: DescService[], options: RpcServiceOptions): void {
  for (const service of services) {
    const impl: Record<string, (req: Message, context: HandlerContext) => Promise<Message>> = {};
    for (const method of service.methods) {
      if (method.methodKind !== 'unary') continue;
      impl[method.localName] = unaryHandler(`${service.typeName}.${method.name}`, method, options);
    }
    // The table is built from the descriptor at run time, so its static type cannot be the generated one.
    router.service(service, impl as unknown as Partial<ServiceImpl<DescService>>);
  }
}

function unaryHandler(rpc: string, method: DescMethod, { operations, gate, requestTimeoutMs }: RpcServiceOptions) {
  return async (request: Message, context: HandlerContext): Promise<Message> => {
    const state = context.values.get(requestStateKey) ?? { requestId: '', client: 'unknown', protocol: 'connect', route: rpc, code: 'ok' };
    state.protocol = rpcProtocolOf(context.requestHeader.get('content-type'));
    const call = { rpc, authorization: context.requestHeader.get('authorization') ?? undefined, client: state.client, state };
    try {
      const output = await withDeadline(
        () => invoke({ operations, gate }, call, () => toJson(method.input, request, { useProtoFieldName: true })),
        tighterLimit(requestTimeoutMs, context.timeoutMs(), state.protocol === 'connect' ? 'connect-timeout-ms' : 'grpc-timeout'),
      );
      state.code = 'ok';
      return responseMessage(method, output);
    } catch (thrown) {
      throw toConnectError(failedCall(state, thrown));
    }
  };
}

/**
 * A reusable output (a search page served again) never changes, so its decoded message is kept with it,
 * per method: two RPCs may share an output but not a response type.
 */
export function responseMessage(method: DescMethod, output: object): Message {
  return encodedOnce(output, method, () => fromJson(method.output, output as JsonValue));
}

/**
 * How each call connect-node serves ended (health and reflection too), for its log line: a call that fails before
 * any handler runs (a body it cannot read) keeps the `unknown` the front gave it, and its log line reads the code
 * from the answer where the answer says it.
 */
export const recordOutcome: Interceptor = (next) => async (req) => {
  const state = req.contextValues.get(requestStateKey);
  const ended = (error?: unknown) => {
    if (state?.code === 'unknown') state.code = error === undefined ? 'ok' : codeName(ConnectError.from(error).code);
  };
  try {
    const res = await next(req);
    // A stream has only begun: it ends when its last message is sent.
    if (res.stream) return { ...res, message: endingWith(res.message, ended) };
    ended();
    return res;
  } catch (error) {
    ended(error);
    throw error;
  }
};

async function* endingWith<T>(messages: AsyncIterable<T>, ended: (error?: unknown) => void): AsyncIterable<T> {
  try {
    yield* messages;
    ended();
  } catch (error) {
    ended(error);
    throw error;
  }
}
