/** The load's workers: each sends one operation after another until the run stops, pausing for every read-back. */
import { setTimeout as sleep } from 'node:timers/promises';
import { FACES } from './faces.ts';
import { operate, pickKind, type Worker } from './operations.ts';
import type { RunState } from './run-state.ts';

export function pause(run: RunState): void {
  run.paused = true;
  run.resumed = new Promise((resolve) => (run.resume = resolve));
}
export async function drained(run: RunState): Promise<void> {
  while (run.inFlight > 0) await sleep(5);
}

/** With --rate, operations start on a fixed schedule (an open loop) rather than as soon as a worker is free. */
export function pacer(now: () => number, rate: number | undefined): () => Promise<void> {
  let nextSlot = 0;
  return async function paced(): Promise<void> {
    if (rate === undefined) return;
    const slot = Math.max(now(), nextSlot);
    nextSlot = slot + 1 / rate;
    const wait = slot - now();
    if (wait > 0) await sleep(wait * 1000);
  };
}

export async function runWorker(run: RunState, worker: Worker, paced: () => Promise<void>): Promise<void> {
  while (!run.stopping) {
    if (run.paused) {
      await run.resumed;
      continue;
    }
    await paced();
    if (run.paused || run.stopping) continue;
    const face = run.pickOne(FACES);
    run.inFlight++;
    const before = run.outages.length;
    const restarting = run.outages.at(-1)?.to === undefined && run.outages.length > 0;
    try {
      await operate(run, worker, pickKind(run.rand), face);
    } finally {
      run.inFlight--;
    }
    // While the service restarts, back off as a client retrying would.
    if (restarting || run.outages.length !== before) await sleep(250);
  }
}
