import type { DescMethod, DescService } from '@bufbuild/protobuf';
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
