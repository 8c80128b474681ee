/** The service's three faces as the soak speaks them: one RPC sent over REST, Connect or gRPC, and its reply read alike. */
import { request, type Agent } from 'node:http';
import { status as grpcStatus, type Client } from '@grpc/grpc-js';
import { fromJson, toJson, type JsonValue } from '@bufbuild/protobuf';
import { rpcMethods } from '../../src/server/connect/services.ts';
import { authorizedBy, isServiceError, unary } from '../../test/support/grpc.ts';

export type Face = 'REST' | 'Connect' | 'gRPC';
export const FACES: Face[] = ['REST', 'Connect', 'gRPC'];

export const KEY = 'tms_soak_admin_key_0000000000000000';

export interface Reply {
  /** The HTTP status, or for gRPC the HTTP status its code maps to; 0 when no answer came (connection failed). */
  status: number;
  json: Record<string, unknown> | undefined;
  /** The request never reached the service (connection refused): it cannot have done anything. */
  refused?: boolean;
  /** Why no answer came (status 0). */
  failure?: string;
}

/** The wait a 429 asks for: every face carries it in the message ("retry after N s"); 1 s if it does not say. */
export const retryAfterSeconds = (reply: Reply): number => Number(/retry after (\d+) s/.exec(String(reply.json?.['message'] ?? ''))?.[1] ?? 1);

/** The HTTP status each gRPC code maps to (as the Connect protocol maps them). */
const GRPC_HTTP: Record<number, number> = {
  [grpcStatus.OK]: 200,
  [grpcStatus.CANCELLED]: 499,
  [grpcStatus.UNKNOWN]: 500,
  [grpcStatus.INVALID_ARGUMENT]: 400,
  [grpcStatus.DEADLINE_EXCEEDED]: 504,
  [grpcStatus.NOT_FOUND]: 404,
  [grpcStatus.ALREADY_EXISTS]: 409,
  [grpcStatus.PERMISSION_DENIED]: 403,
  [grpcStatus.RESOURCE_EXHAUSTED]: 429,
  [grpcStatus.FAILED_PRECONDITION]: 400,
  [grpcStatus.ABORTED]: 409,
  [grpcStatus.OUT_OF_RANGE]: 400,
  [grpcStatus.UNIMPLEMENTED]: 501,
  [grpcStatus.INTERNAL]: 500,
  [grpcStatus.UNAVAILABLE]: 503,
  [grpcStatus.DATA_LOSS]: 500,
  [grpcStatus.UNAUTHENTICATED]: 401,
};

/**
 * One HTTP request. A read sent on a kept-alive connection that the service closed as idle meanwhile (its keep-alive
 * timeout) is reset before the service reads it, and is sent again once on a new connection, as Node's docs advise;
 * a write is not, as it cannot be told apart from one the service read.
 */
export async function http(agent: Agent, port: number, method: string, path: string, body: unknown, bearer: string | null): Promise<Reply> {
  const reply = await httpOnce(agent, port, method, path, body, bearer);
  if (reply.staleConnection && method === 'GET') return httpOnce(agent, port, method, path, body, bearer);
  return reply;
}

function httpOnce(agent: Agent, port: number, method: string, path: string, body: unknown, bearer: string | null): Promise<Reply & { staleConnection?: boolean }> {
  const text = body === undefined ? '' : JSON.stringify(body);
  const headers: Record<string, string | number> = { 'content-length': Buffer.byteLength(text) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (bearer) headers['authorization'] = `Bearer ${bearer}`;
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, json: undefined, failure: error.code ?? error.message }));
      res.on('end', () => {
        let json: Record<string, unknown> | undefined;
        try {
          json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, json });
      });
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({
        status: 0,
        json: undefined,
        refused: error.code === 'ECONNREFUSED',
        failure: error.code ?? error.message,
        staleConnection: req.reusedSocket && error.code === 'ECONNRESET',
      }),
    );
    req.end(text);
  });
}

/** The documented REST route of each RPC the soak sends. */
const REST_ROUTES: Record<string, (body: Record<string, unknown>) => { method: string; path: string; body?: unknown }> = {
  'tms.v1.EventService.SearchEvents': (body) => ({ method: 'GET', path: '/v1/search-events', body }),
  'tms.v1.EventService.ManipulateEvent': (body) => ({ method: 'POST', path: '/v1/manipulate-event', body }),
  'tms.v1.EventService.RevertEvent': (body) => ({ method: 'POST', path: '/v1/revert-event', body }),
  'tms.v1.TimelineService.CreateTimeline': (body) => ({ method: 'POST', path: '/v1/create-timeline', body }),
  'tms.v1.TimelineService.CreateParallelTimeline': (body) => ({ method: 'POST', path: '/v1/create-parallel-timeline', body }),
  'tms.v1.TimelineService.GetTimeline': (body) => ({ method: 'GET', path: `/timeline/${String(body['timeline_id'])}` }),
  'tms.v1.TimelineService.DeleteTimeline': (body) => ({ method: 'DELETE', path: `/timeline/${String(body['timeline_id'])}` }),
  'tms.v1.ParadoxService.CheckParadox': (body) => ({ method: 'GET', path: '/v1/check-paradox', body }),
  'tms.v1.AnchorService.SetAnchor': (body) => ({ method: 'POST', path: '/v1/set-anchor', body }),
  'tms.v1.AnchorService.CheckAnchorStability': (body) => ({ method: 'GET', path: '/v1/check-anchor-stability', body }),
  'tms.v1.AccountService.Login': (body) => ({ method: 'POST', path: '/v1/login', body }),
  'tms.v1.AccountService.CreateAccount': (body) => ({ method: 'POST', path: '/v1/accounts', body }),
};

function grpc(client: Client, rpc: string, body: Record<string, unknown>, bearer: string | null): Promise<Reply> {
  const method = rpcMethods.get(rpc)!;
  const path = `/${method.parent.typeName}/${method.name}`;
  const metadata = authorizedBy(bearer);
  return unary(client, path, method.input, method.output, fromJson(method.input, body as JsonValue), metadata).then(
    (response) => ({ status: 200, json: toJson(method.output, response, { useProtoFieldName: true }) as Record<string, unknown> }),
    (error: unknown) => {
      // A client closed at a kill refuses to send at all.
      if (!isServiceError(error)) return { status: 0, json: undefined, refused: true };
      // A connection that could not be made (or dropped) is no answer from the service.
      if (error.code === grpcStatus.UNAVAILABLE && /connect|connection|ECONNREFUSED|ECONNRESET|socket/i.test(error.details)) {
        return { status: 0, json: undefined, refused: /ECONNREFUSED|No connection established/i.test(error.details) };
      }
      return { status: GRPC_HTTP[error.code] ?? 500, json: { code: error.code, message: error.details } };
    },
  );
}

/** Where a request goes: over these HTTP connections, to whichever process is current when it is sent. */
export interface Service {
  agent: Agent;
  life: { port: number; grpc: Client } | undefined;
}

/** One RPC over one face, against the current process. */
export function send(service: Service, face: Face, rpc: string, body: Record<string, unknown>, bearer: string | null = KEY): Promise<Reply> {
  const current = service.life;
  if (!current) return Promise.resolve({ status: 0, json: undefined });
  if (face === 'gRPC') return grpc(current.grpc, rpc, body, bearer);
  if (face === 'Connect') {
    const method = rpcMethods.get(rpc)!;
    return http(service.agent, current.port, 'POST', `/${method.parent.typeName}/${method.name}`, body, bearer);
  }
  const route = REST_ROUTES[rpc]!(body);
  return http(service.agent, current.port, route.method, route.path, route.body, bearer);
}

/** A field of a JSON answer: proto field names (REST, gRPC here) or their camelCase JSON names (Connect). */
export function field(json: Record<string, unknown> | undefined, name: string): string | undefined {
  const value = json?.[name] ?? json?.[name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
