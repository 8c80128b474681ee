import { pino, type Logger } from 'pino';
import { TurnBufferedStream } from './turn-buffered-stream.ts';

export type { Logger };

/**
 * JSON lines on stdout; one line per request is written by the request log, not here.
 *
 * Writes are synchronous, a turn of the event loop at a time (docs/decisions.md): an asynchronous
 * destination cannot drain one line per request as fast as requests arrive, so lines pile up in memory
 * without bound and are lost on a crash. A turn's lines are in the kernel before the next turn reads requests.
 */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'tms' }, timestamp: isoTimestamp }, stdout());
}

let stdoutStream: TurnBufferedStream | undefined;

/** One stream for every logger of the process, written out on exit. */
function stdout(): TurnBufferedStream {
  if (!stdoutStream) {
    const stream = new TurnBufferedStream(pino.destination({ dest: 1, sync: true }));
    process.once('exit', () => stream.flushSync());
    stdoutStream = stream;
  }
  return stdoutStream;
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
