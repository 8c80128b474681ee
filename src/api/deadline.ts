import { ApiError } from '../domain/errors.ts';

/** A request's time limit, started when the request is admitted. */
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
    readonly ms: number,
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
        `request: not finished within ${entry.ms} ms (TMS_REQUEST_TIMEOUT_MS); a change it was making may still complete, so read before retrying`,
      ),
    );
  }
  if (pending.size === 0) {
    clearInterval(ticker);
    ticker = undefined;
  }
}

/**
 * Calls `onExpire` with a `deadline_exceeded` error when `clear` has not been called within `ms` (to
 * within 10 ms). The work itself is not stopped: a write already handed to the store may still commit, so
 * the message says to read first.
 */
export function startDeadline(ms: number, onExpire: (error: ApiError) => void): Deadline {
  if (!Number.isFinite(ms)) return NEVER;
  const entry = new PendingDeadline(performance.now() + ms, ms, onExpire);
  pending.add(entry);
  ticker ??= setInterval(sweep, TICK_MS).unref();
  return entry;
}

/** `work`, or a `deadline_exceeded` rejection when it takes longer than `ms`. */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  if (!Number.isFinite(ms)) return work;
  return new Promise<T>((resolve, reject) => {
    const deadline = startDeadline(ms, reject);
    work.then(
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
