import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * JSON lines on stdout; one line per request is written by the request log, not here.
 *
 * Writes are synchronous on purpose. Measured under load (docs/decisions.md): an asynchronous
 * destination cannot drain one line per request as fast as requests arrive, so lines pile up in
 * memory without bound and are lost on a crash, while the total CPU per request is no lower, only
 * spent later. A synchronous line is in the kernel once its request has finished.
 */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'tms' }, timestamp: isoTimestamp }, pino.destination({ dest: 1, sync: true }));
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
