import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * JSON lines on stdout; one line per request is written by the request log, not here. Writes are
 * asynchronous (lines queued while a write is in flight go out together: one syscall per burst, not
 * per request) and pino flushes what is left when the process exits.
 */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'tms' }, timestamp: isoTimestamp }, pino.destination({ dest: 1, sync: false }));
}

let lastMs = -1;
let lastField = '';

/** pino's ISO time field, formatted once per millisecond rather than once per line. */
function isoTimestamp(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastField = `,"time":"${new Date(ms).toISOString()}"`;
  }
  return lastField;
}
