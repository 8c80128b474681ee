import type { Logger } from './logger.ts';

/**
 * Says in one line when what `problem` reports begins (a warning, with the reason) and when it ends, checked every
 * `everyMs`: during an outage each request has its own line too, but the start and the end are said once.
 */
export function watchProblem(logger: Logger, what: string, problem: () => string | undefined, everyMs = 1_000): () => void {
  let current: string | undefined;
  const timer = setInterval(() => {
    const now = problem();
    if (now !== undefined && current === undefined) logger.warn({ problem: now }, `${what}: a problem began`);
    else if (now === undefined && current !== undefined) logger.info({ was: current }, `${what}: the problem is over`);
    current = now;
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
