import { ApiError } from '../domain/errors.ts';

/**
 * Answers `deadline_exceeded` when `work` takes longer than `ms`. The work itself is not stopped: a
 * write already handed to the store may still commit, so the message tells the client to read first.
 */
export function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  if (!Number.isFinite(ms)) return work;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ApiError(
            'deadline_exceeded',
            `request: not finished within ${ms} ms (TMS_REQUEST_TIMEOUT_MS); a change it was making may still complete, so read before retrying`,
          ),
        ),
      ms,
    );
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
