import { ApiError } from '../domain/errors.ts';

/** A request's time limit, started when the request arrives. */
export interface Deadline {
  /** True once the limit passed (the expiry callback has run). */
  readonly expired: boolean;
  /** The request finished in time: forget it. */
  clear(): void;
}

class PendingDeadline implements Deadline {
  expired = false;

  constructor(
    readonly due: number,
    readonly limit: TimeLimit,
    readonly onExpire: (error: ApiError) => void,
  ) {}

  clear(): void {
    pending.delete(this);
  }
}

const NEVER: Deadline = Object.freeze({ expired: false, clear() {} });
const pending = new Set<PendingDeadline>();
/** One coarse timer for every request (a timer each costs as much as the rest of a cached search). */
const TICK_MS = 10;
let ticker: NodeJS.Timeout | undefined;

function sweep(): void {
  const now = performance.now();
  for (const entry of pending) {
    if (entry.due > now) continue;
    pending.delete(entry);
    entry.expired = true;
    entry.onExpire(
      new ApiError(
        'deadline_exceeded',
        `request: not finished within ${entry.limit.ms} ms (${entry.limit.source}); a write may still complete after this answer, so read before retrying one`,
      ),
    );
  }
  if (pending.size === 0) {
    clearInterval(ticker);
    ticker = undefined;
  }
}

/** A time limit and what set it, which the error names: the server's setting or the client's own header. */
export interface TimeLimit {
  ms: number;
  source: string;
}

const SERVER_LIMIT = 'TMS_REQUEST_TIMEOUT_MS';

/** The server's limit, or the client's (sent in `header`) where it is shorter. */
export function tighterLimit(serverMs: number, clientMs: number | undefined, header: string): TimeLimit {
  return clientMs !== undefined && clientMs < serverMs ? { ms: clientMs, source: header } : { ms: serverMs, source: SERVER_LIMIT };
}

/**
 * Calls `onExpire` with a `deadline_exceeded` error when `clear` has not been called within the limit (to
 * within 10 ms). The work itself is not stopped: a write already handed to the store may still commit, so
 * the message says to read first. A bare number is the server's own limit.
 */
export function startDeadline(limit: number | TimeLimit, onExpire: (error: ApiError) => void): Deadline {
  const { ms, source } = typeof limit === 'number' ? { ms: limit, source: SERVER_LIMIT } : limit;
  if (!Number.isFinite(ms)) return NEVER;
  const entry = new PendingDeadline(performance.now() + ms, { ms, source }, onExpire);
  pending.add(entry);
  ticker ??= setInterval(sweep, TICK_MS).unref();
  return entry;
}

/**
 * `work` started, or a `deadline_exceeded` rejection when it takes longer than the limit. A limit already spent
 * when the call arrives (a client's `grpc-timeout: 0n`) starts nothing: not even a write.
 */
export function withDeadline<T>(work: () => Promise<T>, limit: TimeLimit): Promise<T> {
  if (!Number.isFinite(limit.ms)) return work();
  if (limit.ms <= 0) return Promise.reject(new ApiError('deadline_exceeded', `request: its time limit (${limit.source}) had passed when it arrived; nothing was done`));
  return new Promise<T>((resolve, reject) => {
    const deadline = startDeadline(limit, reject);
    work().then(
      (value) => {
        deadline.clear();
        resolve(value);
      },
      (error: unknown) => {
        deadline.clear();
        reject(error);
      },
    );
  });
}
