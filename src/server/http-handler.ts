import { constants, Http2ServerResponse } from 'node:http2';
import type { ConnectNodeAdapterOptions } from '@connectrpc/connect-node';
import { Code, ConnectError } from '@connectrpc/connect';
import { cutByShutdown, parserAnswerOf, type AnyRequest, type AnyResponse, type ClientErrorAnswer, type RequestHandler } from './one-port.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import { plainAddress, type ClientAddresses } from './client-address.ts';
import type { RequestState } from './request-state.ts';
import type { RestRouter } from './rest/router.ts';
import type { UnaryRpcHandler } from './unary-rpc.ts';
import { ApiError } from '../domain/errors.ts';
import { codeOfConnectStatus, toConnectError, unsupportedContentType } from './errors.ts';
import { requestIdOf, requestStateOf, rpcProtocolOf, setRequestState } from './request-state.ts';
import { serveRest, type RestDeps } from './rest/rest-handler.ts';
import { failedCall } from './invoke.ts';
import { tighterLimit, withDeadline } from '../api/deadline.ts';
import { sendGrpcStatus } from './grpc/status-reply.ts';
import { encodeGrpcMessagesOf } from './grpc/grpc-message.ts';
import { authorizationHeader, sendError } from './http-io.ts';

/** Routes that are not RPCs: health, metrics, API description, console. */
export type PlainRoute = (req: AnyRequest, res: AnyResponse, state: RequestState) => void | Promise<void>;

export interface HttpHandlerDeps extends RestDeps {
  restRouter: RestRouter;
  /** Serves gRPC, gRPC-Web and Connect (paths `/<package>.<Service>/<Method>`). */
  rpcHandler: RequestHandler;
  /** Unary calls it takes (plain gRPC, uncompressed Connect), before `rpcHandler`. */
  unaryRpc: UnaryRpcHandler;
  /** Each RPC path served (`/tms.v1.EventService/SearchEvents`) → its route in logs and metrics. */
  rpcRoutes: ReadonlyMap<string, string>;
  plainRoutes: ReadonlyMap<string, PlainRoute>;
  /** Prefix routes (e.g. `/console/`) tried after exact plain routes. */
  prefixRoutes: ReadonlyArray<[string, PlainRoute]>;
  clientAddresses: ClientAddresses;
  logger: Logger;
  metrics: Metrics;
}

/**
 * What the RPC faces read (connect-node's own rules): Connect unary and streaming, gRPC and gRPC-Web, JSON or
 * binary. Not gRPC-Web's base64 text mode, which connect-node does not read.
 */
const RPC_CONTENT_TYPE = /^application\/(?:(?:connect\+)?(?:json(?:; ?charset=utf-?8)?|proto)|grpc(?:-web)?(?:\+(?:json(?:; ?charset=utf-?8)?|proto))?)$/i;
/** The route in logs and metrics of a request no route took. */
const UNMATCHED = 'unmatched';
/** Health, metrics, the API description and static files only ever answer reads. */
const PLAIN_METHODS = ['GET', 'HEAD'];

export function createHttpHandler(deps: HttpHandlerDeps): RequestHandler {
  return (req, res) => {
    const started = performance.now();
    const requestId = requestIdOf(req);
    const state: RequestState = { requestId, client: deps.clientAddresses.of(req), protocol: 'http', route: UNMATCHED, code: 'ok' };
    // 'close', not 'finish': a request whose client went away before the answer is logged and counted too.
    res.once('close', () => {
      state.ended = true;
      logRequest(deps, req, res, state, started);
    });

    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const method = req.method ?? 'GET';

    const match = deps.restRouter.match(method, path);
    if (match.kind === 'found') {
      state.protocol = 'rest';
      serveRest(req, res, match.route, match.params, q === -1 ? '' : url.slice(q + 1), state, deps).catch((error: unknown) => {
        deps.logger.error({ err: error, req_id: requestId }, 'REST handler failed');
        if (!res.headersSent) sendError(res, new ApiError('internal', 'internal error (see the server log for this request id)'));
      });
      return;
    }
    if (match.kind === 'wrong_method') {
      res.setHeader('x-request-id', requestId);
      answerWrongMethod(res, state, method, path, match.allow);
      return;
    }
    if (isRpcPath(path)) {
      setRequestState(req, state);
      res.setHeader('x-request-id', requestId);
      // No tms RPC is marked idempotent, so Connect's GET form does not apply: POST is the one method.
      if (method !== 'POST') {
        answerWrongMethod(res, state, method, path, ['POST']);
        return;
      }
      const contentType = req.headers['content-type'];
      if (!RPC_CONTENT_TYPE.test(contentType ?? '')) {
        // connect-node answers these with an empty 415; every other error is the error JSON, so this is too.
        state.code = 'invalid_argument';
        sendError(res, unsupportedContentType('application/json or application/proto (Connect), application/grpc (gRPC) or application/grpc-web (gRPC-Web)', contentType));
        return;
      }
      if (!deps.unaryRpc(req, res, path, state)) {
        // connect-node reads the body before any handler of ours runs: the line names the call from here on.
        state.protocol = rpcProtocolOf(contentType);
        state.route = deps.rpcRoutes.get(path) ?? state.route;
        state.code = 'unknown';
        closeIfAnsweredEarly(req, res);
        if (state.protocol !== 'connect') encodeGrpcMessagesOf(res);
        // Within the server's time limit, as every face's gate is; the call's own limit applies from its handler on.
        withDeadline(() => admitBeforeBody(deps, req, state), tighterLimit(deps.requestTimeoutMs, undefined, ''))
          .then(
            () => deps.rpcHandler(req, res),
            (thrown: unknown) => {
              const error = failedCall(state, thrown);
              if (state.protocol === 'connect') sendError(res, error);
              else sendGrpcStatus(res, req.httpVersionMajor, contentType!, toConnectError(error));
            },
          )
          .catch((error: unknown) => res.destroy(error instanceof Error ? error : undefined));
      }
      return;
    }
    const exact = deps.plainRoutes.get(path);
    const prefixed = exact ? undefined : deps.prefixRoutes.find(([prefix]) => path.startsWith(prefix));
    const plain = exact ?? prefixed?.[1];
    if (plain) {
      // A route label is one of a few: every path under a prefix is one route, or anyone could make series without end.
      state.route = prefixed ? `${prefixed[0]}*` : path;
      res.setHeader('x-request-id', requestId);
      if (!PLAIN_METHODS.includes(method)) {
        answerWrongMethod(res, state, method, path, PLAIN_METHODS);
        return;
      }
      Promise.resolve(plain(req, res, state)).catch((error: unknown) => {
        deps.logger.error({ err: error, req_id: requestId }, 'plain route failed');
        if (!res.headersSent) sendError(res, new ApiError('internal', 'internal error'));
      });
      return;
    }
    state.code = 'not_found';
    sendError(res, new ApiError('not_found', `no route for ${method} ${path}`), { 'x-request-id': requestId });
  };
}

/**
 * connect-node reads and decodes a call's body before any handler of ours runs, so an operation's caller is
 * admitted here first, as REST's is before its body is read: a caller without access, or over its rate, costs no
 * decompression or decoding. `invoke` takes the caller admitted here.
 */
async function admitBeforeBody(deps: HttpHandlerDeps, req: AnyRequest, state: RequestState): Promise<void> {
  // connect-node sees only the first of two Authorization headers.
  const authorization = authorizationHeader(req);
  if (!deps.operations.has(state.route)) return;
  state.admitted = await deps.gate.admit(authorization, state.client, state.route, state);
}

/**
 * An HTTP/1.1 answer sent before its request's body has all arrived (connect-node refusing a body over the
 * limit) closes the connection, as `closeIfBodyUnread` does on our own paths: the rest of that body would be
 * read as the next request.
 */
function closeIfAnsweredEarly(req: AnyRequest, res: AnyResponse): void {
  if (req.httpVersionMajor !== 1) return;
  const writeHead = res.writeHead;
  res.writeHead = function (this: AnyResponse, ...args: unknown[]) {
    if (!req.complete) this.setHeader('connection', 'close');
    return (writeHead as (...a: unknown[]) => AnyResponse).apply(this, args);
  } as typeof res.writeHead;
}

/** 405 with `Allow`, in the error JSON. */
function answerWrongMethod(res: AnyResponse, state: RequestState, method: string, path: string, allowed: readonly string[]): void {
  state.code = 'unimplemented';
  const allow = allowed.join(', ');
  sendError(res, new ApiError('unimplemented', `method ${method} is not allowed on ${path}; allowed: ${allow}`, [], 'method_not_allowed'), { allow });
}

/**
 * connect-node's answer for an RPC path no service registers: the same error JSON as every other error
 * (404, as the Connect protocol asks for an unknown procedure; gRPC clients read 404 as UNIMPLEMENTED).
 */
export const answerUnknownRpc: NonNullable<ConnectNodeAdapterOptions['fallback']> = (req, nodeRes) => {
  // connect-node hands back the response our own handler passed it; only its type is connect-node's.
  const res = nodeRes as unknown as AnyResponse;
  const state = requestStateOf(req);
  if (state) state.code = 'unimplemented';
  const path = (req.url ?? '/').split('?')[0];
  const message = `no RPC method ${path} (unknown service or method)`;
  const contentType = req.headers['content-type'] ?? '';
  if (contentType.startsWith('application/grpc')) {
    // An HTTP 404 would reach gRPC clients without the message.
    sendGrpcStatus(res, req.httpVersionMajor, contentType, new ConnectError(message, Code.Unimplemented));
    return;
  }
  sendError(res, new ApiError('unimplemented', message, [], 'no_such_path'));
};

/** A protobuf service's full name (package, then service), then a method name: the only paths an RPC can have. */
const RPC_PATH = /^\/[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\/[A-Za-z_]\w*$/;

/** `/tms.v1.EventService/SearchEvents`, `/grpc.health.v1.Health/Check`; not `/.well-known/security.txt`. */
const isRpcPath = (path: string): boolean => RPC_PATH.test(path);

/**
 * The code of an answer that no handler of ours saw, where its head says it: a Connect error's HTTP status. gRPC
 * and gRPC-Web give theirs in trailers, which stay `unknown` here.
 */
function answeredCode(res: AnyResponse, protocol: RequestState['protocol']): string | undefined {
  return protocol === 'connect' && res.statusCode !== 200 ? codeOfConnectStatus(res.statusCode) : undefined;
}

/** The status logged for a request whose client left before the answer was written (nginx's convention). */
const CLIENT_CLOSED_REQUEST = 499;
/** The status logged for a request whose connection the server closed without an answer (nginx's convention). */
const NO_RESPONSE = 444;

/** A share token is a credential to its saved request: the log keeps its place in the path, not its value. */
const SHARE_TOKEN = /shr_[\w-]+/g;

function loggedPath(url: string | undefined): string | undefined {
  return url?.includes('shr_') ? url.replace(SHARE_TOKEN, 'shr_[redacted]') : url;
}

/**
 * An HTTP/2 client that cancels a call while sending (grpc-js, Node's `stream.close`) ends its body and then
 * resets the stream: the body's end may be answered (an incomplete message, say) before the reset arrives, and that
 * answer never reaches the client.
 */
const cancelledByClient = (res: AnyResponse): boolean => res instanceof Http2ServerResponse && res.stream.rstCode === constants.NGHTTP2_CANCEL;

function logRequest(deps: HttpHandlerDeps, req: AnyRequest, res: AnyResponse, state: RequestState, started: number): void {
  const seconds = (performance.now() - started) / 1000;
  const answered = res.writableEnded && !cancelledByClient(res);
  const cut = !answered && cutByShutdown(res);
  const parser = answered ? undefined : parserAnswerOf(res);
  if (!answered) state.code = parser?.code ?? (cut ? 'unavailable' : 'canceled');
  else if (state.code === 'unknown') state.code = answeredCode(res, state.protocol) ?? 'unknown';
  deps.metrics.observe(state.route, state.protocol, state.code, seconds);
  const level = state.failure !== undefined ? 'error' : state.outage ? 'warn' : 'info';
  deps.logger[level](
    {
      // The id the client saw: Node's parser answered with one of its own where the handler had set none.
      req_id: parser?.requestId ?? state.requestId,
      client: state.client,
      method: req.method,
      path: loggedPath(req.url),
      protocol: state.protocol,
      route: state.route,
      status: answered ? res.statusCode : (parser?.status ?? (cut ? NO_RESPONSE : CLIENT_CLOSED_REQUEST)),
      code: state.code,
      duration_ms: Math.round(seconds * 100_000) / 100,
      key_id: state.credentialId,
      account: state.account,
      ...(state.failure !== undefined && { err: state.failure }),
      // Not `err`: pino would read it as an error and name its type Object.
      ...(state.outage && { outage: state.outage }),
    },
    'request',
  );
}

/**
 * The line and count of an answer Node's HTTP/1.1 parser called for (bytes that are not a request, headers too large
 * or too late): no route saw a request, so it has no method, path or duration.
 */
export function logClientError(logger: Logger, metrics: Metrics | undefined, answer: ClientErrorAnswer): void {
  metrics?.count(UNMATCHED, 'http', answer.code);
  logger.info(
    {
      req_id: answer.requestId,
      client: answer.peer === undefined ? undefined : plainAddress(answer.peer),
      protocol: 'http',
      route: UNMATCHED,
      status: answer.status,
      code: answer.code,
    },
    'request',
  );
}
