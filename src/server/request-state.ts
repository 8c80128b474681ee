/** What a request's single log line and metrics need, filled in as the request is served. */
export interface RequestState {
  requestId: string;
  protocol: 'rest' | 'connect' | 'grpc' | 'grpc-web' | 'http';
  route: string;
  code: string;
  credentialId?: string;
  account?: string;
  /** An unexpected error (a bug): the client sees only "internal error", the log gets the stack. */
  failure?: unknown;
}

const states = new WeakMap<object, RequestState>();

export const setRequestState = (req: object, state: RequestState): void => void states.set(req, state);
export const requestStateOf = (req: object): RequestState | undefined => states.get(req);
