import type { DestinationStream } from 'pino';

/** What the lines are finally written to: sonic-boom in synchronous mode (it retries a full pipe). */
export interface SyncWriter {
  write(data: string): boolean;
  flushSync(): void;
}

/** More than this waiting is written at once, without waiting for the turn to end. */
const MAX_PENDING_CHARS = 64 * 1024;

/**
 * Log lines gathered during one event-loop turn and written together at its end (`setImmediate`), with one
 * write for the turn instead of one per line. Memory stays bounded: at most one turn's lines, never more
 * than 64 Ki characters. A line is in the kernel before the service reads its next batch of requests, and
 * on exit whatever waits is written synchronously; only a kill -9 in mid-turn loses lines, those of that turn.
 */
export class TurnBufferedStream implements DestinationStream {
  #pending = '';
  #scheduled = false;
  readonly #out: SyncWriter;

  constructor(out: SyncWriter) {
    this.#out = out;
  }

  write(line: string): void {
    this.#pending += line;
    if (this.#pending.length >= MAX_PENDING_CHARS) this.flushSync();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#endOfTurn);
    }
  }

  /** Writes everything waiting, now. */
  flushSync(): void {
    this.#writePending();
    this.#out.flushSync();
  }

  /** pino's `logger.flush(cb)`. */
  flush(done: (error?: Error) => void): void {
    try {
      this.flushSync();
      done();
    } catch (error) {
      done(error as Error);
    }
  }

  readonly #endOfTurn = (): void => {
    this.#scheduled = false;
    this.#writePending();
  };

  #writePending(): void {
    if (!this.#pending) return;
    const lines = this.#pending;
    this.#pending = '';
    this.#out.write(lines);
  }
}
