import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * JSON lines on stdout; one line per request is written by the request log, not here. Writes are
 * asynchronous (lines queued while a write is in flight go out together: one syscall per burst, not
 * per request) and pino flushes what is left when the process exits.
 */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'tms' }, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ dest: 1, sync: false }));
}
