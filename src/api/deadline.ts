import { ApiError } from '../domain/errors.ts';

interface Pending {
  due: number;
  ms: number;
  reject(error: ApiError): void;
}

const pending = new Set<Pending>();
/** One coarse timer for every request (a timer each costs as much as the rest of a cached search). */
const TICK_MS = 10;
let ticker: NodeJS.Timeout | undefined;

function sweep(): void {
  const now = performance.now();
  for (const entry of pending) {
    if (entry.due > now) continue;
    pending.delete(entry);
    entry.reject(
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
 * Answers `deadline_exceeded` when `work` takes longer than `ms` (to within 10 ms). The work itself is
 * not stopped: a write already handed to the store may still commit, so the message says to read first.
 */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  if (!Number.isFinite(ms)) return work;
  return new Promise<T>((resolve, reject) => {
    const entry: Pending = { due: performance.now() + ms, ms, reject };
    pending.add(entry);
    ticker ??= setInterval(sweep, TICK_MS).unref();
    work.then(
      (value) => {
        pending.delete(entry);
        resolve(value);
      },
      (error: unknown) => {
        pending.delete(entry);
        reject(error);
      },
    );
  });
}
