import { ApiError } from '../domain/errors.ts';

/** The request a task is for, as the server tracks it: ended once answered (by its deadline, perhaps) or its client gone. */
export interface TaskRequest {
  readonly ended?: boolean;
}

export interface Turn {
  done(): void;
}

interface Waiting {
  request: TaskRequest | undefined;
  start(): void;
  refuse(error: ApiError): void;
}

/** The refusal of a task whose request ended before the task could start. */
export const abandoned = () => new ApiError('canceled', 'analysis: its request ended before a worker was free for it; it did not run');

/**
 * Hands out the workers' turns in the order tasks came, one task per worker at a time. A task waits here, not in
 * the worker pool's queue, so that one whose request has ended by its turn is dropped without running: a request
 * answered by its deadline leaves no work behind it for a worker.
 */
export class TaskTurns {
  private running = 0;
  private waiting: Waiting[] = [];

  constructor(
    private readonly workers: number,
    private readonly maxWaiting: number,
    private readonly full: () => ApiError,
  ) {}

  get waitingCount(): number {
    return this.waiting.length;
  }

  /** A turn at once when a worker is free and no task waits: the task starts in the same step, without awaiting. */
  free(): Turn | undefined {
    if (this.running >= this.workers || this.waiting.length > 0) return undefined;
    this.running++;
    return this.turn();
  }

  /** The task's turn once a worker is free for it, in the order tasks came; refused when too many wait. */
  wait(request: TaskRequest | undefined): Promise<Turn> {
    const now = this.free();
    if (now) return Promise.resolve(now);
    if (this.waiting.length >= this.maxWaiting) this.dropEnded();
    if (this.waiting.length >= this.maxWaiting) return Promise.reject(this.full());
    return new Promise((resolve, reject) => {
      this.waiting.push({ request, start: () => resolve(this.turn()), refuse: reject });
    });
  }

  /** Its `done` hands the worker on to the next task; calling it again does nothing. */
  private turn(): Turn {
    let finished = false;
    return {
      done: () => {
        if (finished) return;
        finished = true;
        this.finish();
      },
    };
  }

  private finish(): void {
    this.running--;
    while (this.running < this.workers && this.waiting.length > 0) {
      const next = this.waiting.shift()!;
      if (next.request?.ended) {
        next.refuse(abandoned());
        continue;
      }
      this.running++;
      next.start();
    }
  }

  private dropEnded(): void {
    const [ended, live] = partition(this.waiting, (entry) => entry.request?.ended === true);
    this.waiting = live;
    for (const entry of ended) entry.refuse(abandoned());
  }
}

function partition<T>(items: readonly T[], test: (item: T) => boolean): [T[], T[]] {
  const yes: T[] = [];
  const no: T[] = [];
  for (const item of items) (test(item) ? yes : no).push(item);
  return [yes, no];
}
