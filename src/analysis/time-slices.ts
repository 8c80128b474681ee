/**
 * Cooperative time slicing for work that must stay on the request thread (it builds objects that live
 * there, e.g. a causal graph's id list) but is too long to run in one go: the work is written as a
 * generator that yields at safe points, and the runner gives the event loop a turn (`setImmediate`, so
 * pending I/O is served) whenever a slice has used its few milliseconds.
 */

/** A computation that yields (nothing) at safe points, every few thousand iterations, and returns T. */
export type Steps<T> = Generator<void, T, void>;

/** Longest stretch, in ms, that sliced work keeps the event loop before giving it a turn. */
export const DEFAULT_SLICE_MS = 4;

/** Iterations between safe points in tight loops: cheap to check, well under a millisecond of work. */
export const STEP_EVERY = 1024;

/**
 * Resumes after the event loop has been round once: timers, I/O and other immediates all get a turn. Two
 * immediates, because one queued from an I/O callback runs in the same loop iteration, before any timer.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/** yieldToEventLoop for code that an immediate resumed: one queued there already runs after the next round's timers and I/O. */
function yieldFromImmediate(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Runs the steps to the end at once (small inputs, tests, offline tools). */
export function runToEnd<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** Runs the steps, giving the event loop a turn whenever `sliceMs` have passed since the last one. */
export async function runInSlices<T>(steps: Steps<T>, sliceMs = DEFAULT_SLICE_MS): Promise<T> {
  const slicer = new TimeSlicer(sliceMs);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    if (slicer.due()) await slicer.pause();
  }
}

/** For async loops: `if (slicer.due()) await slicer.pause();` at safe points. */
export class TimeSlicer {
  private readonly sliceMs: number;
  private sliceStarted = performance.now();
  /** Whether the work runs where the last pause resumed it, inside an immediate. */
  private resumedByImmediate = false;

  constructor(sliceMs = DEFAULT_SLICE_MS) {
    this.sliceMs = sliceMs;
  }

  due(): boolean {
    return performance.now() - this.sliceStarted >= this.sliceMs;
  }

  async pause(): Promise<void> {
    await (this.resumedByImmediate ? yieldFromImmediate() : yieldToEventLoop());
    this.resumedByImmediate = true;
    this.sliceStarted = performance.now();
  }

  /** Call after an `await` of other work: the time spent away does not count against the slice. */
  restart(): void {
    this.resumedByImmediate = false;
    this.sliceStarted = performance.now();
  }
}
