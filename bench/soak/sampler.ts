/** Once a second, a sample of the current process: its memory, event-loop delay and CPU time. */
import { setTimeout as sleep } from 'node:timers/promises';
import { rssMiB, schedstat, scrape, type GcCounts } from './process-samples.ts';
import { readResidentParts, type ResidentParts } from './resident-parts.ts';
import type { RunState } from './run-state.ts';

export interface Sample {
  at: number;
  life: number;
  rssMiB: number;
  loopP99Ms?: number;
  /** What the service's caches hold by their own estimate (tms_cache_bytes, all caches): growth they explain is bounded. */
  cacheMiB?: number;
  /** The V8 heap in use (tms_nodejs_heap_size_used_bytes): tells JavaScript objects from native memory. */
  heapMiB?: number;
  /** The V8 heap reserved (tms_nodejs_heap_size_total_bytes): garbage not yet collected counts here, in RSS. */
  heapTotalMiB?: number;
  /** Memory of Buffers and ArrayBuffers outside the heap (tms_nodejs_external_memory_bytes). */
  externalMiB?: number;
  /** Collections since the process started: the loop delay's share that is the garbage collector. */
  gc?: GcCounts;
  /**
   * The request thread's time on a CPU, and runnable but waiting for one, in the second before the sample
   * (/proc/<pid>/schedstat): the wait is the machine's share of the loop delay, the time on a CPU ours.
   */
  mainRunMs?: number;
  mainWaitMs?: number;
  /** Where the resident memory is (/proc/<pid>/smaps), every PARTS_EVERY_S seconds: reading it takes a few ms. */
  parts?: ResidentParts;
}

const PARTS_EVERY_S = 5;

export async function sampleLoop(run: RunState): Promise<void> {
  const { now, samples } = run;
  let lastSched: { pid: number; run: number; wait: number } | undefined;
  let partsAt = -Infinity;
  while (!run.stopping) {
    const current = run.life;
    if (current && current.endedAt === undefined && !run.paused) {
      const partsDue = now() - partsAt >= PARTS_EVERY_S;
      const [rss, metrics, sched, parts] = await Promise.all([
        rssMiB(current.pid),
        scrape(run.agent, current.port),
        schedstat(current.pid),
        partsDue ? readResidentParts(current.pid) : undefined,
      ]);
      if (parts) partsAt = now();
      if (rss !== undefined && run.life === current && current.endedAt === undefined) {
        const since = lastSched?.pid === current.pid ? lastSched : undefined;
        samples.push({
          at: now(),
          life: current.index,
          rssMiB: rss,
          loopP99Ms: metrics.loopP99,
          cacheMiB: metrics.cacheMiB,
          heapMiB: metrics.heapMiB,
          heapTotalMiB: metrics.heapTotalMiB,
          externalMiB: metrics.externalMiB,
          gc: metrics.gc,
          ...(sched && since && { mainRunMs: (sched.run - since.run) / 1e6, mainWaitMs: (sched.wait - since.wait) / 1e6 }),
          ...(parts && { parts }),
        });
      }
      lastSched = sched && { pid: current.pid, ...sched };
    }
    await sleep(1000);
  }
}
