import { randomUUID } from 'node:crypto';
import type { AnyRequest } from './one-port.ts';
import type { Principal } from '../accounts/principal.ts';

/** What a request's single log line and metrics need, filled in as the request is served. */
export interface RequestState {
  requestId: string;
  /** Where the request comes from (`ClientAddresses`): login throttling counts failures by it. */
  client: string;
  protocol: 'rest' | 'connect' | 'grpc' | 'grpc-web' | 'http';
  route: string;
  code: string;
  /** The caller, where the gate admitted it before the body was read (calls connect-node decodes). */
  admitted?: Principal;
  credentialId?: string;
  account?: string;
  /** Why the server failed the request, for its log line: an unexpected error (a bug) with its stack, which the client never sees. */
  failure?: unknown;
  /** Why the database could not be reached, for its log line (a warning: the service works, what it needs does not). */
  outage?: { type: string; message: string };
  /** The exchange is over (its answer sent, by a deadline perhaps, or its client gone): work not yet begun for it is skipped. */
  ended?: boolean;
}

/** The RPC protocol a call speaks, by its content type (connect-node's reading). */
export function rpcProtocolOf(contentType: string | null | undefined): RequestState['protocol'] {
  if (!contentType) return 'connect';
  if (contentType.startsWith('application/grpc-web')) return 'grpc-web';
  if (contentType.startsWith('application/grpc')) return 'grpc';
  return 'connect';
}

const states = new WeakMap<object, RequestState>();

export const setRequestState = (req: object, state: RequestState): void => void states.set(req, state);
export const requestStateOf = (req: object): RequestState | undefined => states.get(req);

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** The client's `x-request-id` where it is a sensible one (word characters, `.`, `:`, `-`; up to 128), else a new one. */
export function requestIdOf(req: AnyRequest): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
