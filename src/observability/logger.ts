import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * sonic-boom measures its pending chunk (flattening it) on every line, so a long chunk costs each line a
 * copy of it: with the default 16 KiB, about 8 KB of garbage per request line under load. A small chunk
 * keeps that copy short for a few more write calls.
 */
const MAX_WRITE_BYTES = 2048;

/**
 * JSON lines on stdout; one line per request is written by the request log, not here. Writes are
 * asynchronous (lines queued while a write is in flight go out together, up to 2 KiB per syscall) and
 * pino flushes what is left when the process exits.
 */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'tms' }, timestamp: isoTimestamp }, pino.destination({ dest: 1, sync: false, maxWrite: MAX_WRITE_BYTES }));
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
