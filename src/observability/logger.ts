import { pino, type Logger } from 'pino';

export type { Logger };

/** JSON lines on stdout; one line per request is written by the request log, not here. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'tms' }, timestamp: pino.stdTimeFunctions.isoTime });
}
