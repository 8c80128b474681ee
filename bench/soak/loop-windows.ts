/**
 * What the 1-s windows whose loop delay went over the limit had in common: a collection pause over 10 ms in the
 * same second, and how long the request thread ran or waited for a CPU in it, against the windows within it.
 */
import { percentile } from '../lib/report.ts';
import type { Sample } from './sampler.ts';

export interface LoopWindow {
  loopP99Ms: number;
  /** A collection paused the thread for more than 10 ms in this second; undefined where the counts are missing. */
  longGcPause?: boolean;
  mainRunMs?: number;
  mainWaitMs?: number;
}

export interface LoopAttribution {
  windows: number;
  over: number;
  /** Of the windows over the limit, those with a collection pause over 10 ms in the same second. */
  overWithLongGc: number;
  /** Medians of the request thread's ms a second on a CPU and waiting for one, over the limit and within it. */
  overRunMs?: number;
  overWaitMs?: number;
  withinRunMs?: number;
  withinWaitMs?: number;
}

/**
 * One window per sample with a loop figure taken at or after `from` s, in order, from one process's samples. The
 * collector's counts are cumulative at each scrape, and each loop figure covers the second since the scrape
 * before: the difference from the previous sample is that second.
 */
export function loopWindows(samples: readonly Sample[], from: number): LoopWindow[] {
  const windows: LoopWindow[] = [];
  for (let i = 0; i < samples.length; i++) {
    const sample = samples[i]!;
    if (sample.at < from || sample.loopP99Ms === undefined) continue;
    const previous = samples[i - 1]?.gc;
    windows.push({
      loopP99Ms: sample.loopP99Ms,
      ...(previous && sample.gc && { longGcPause: sample.gc.over10ms > previous.over10ms }),
      ...(sample.mainRunMs !== undefined && { mainRunMs: sample.mainRunMs }),
      ...(sample.mainWaitMs !== undefined && { mainWaitMs: sample.mainWaitMs }),
    });
  }
  return windows;
}

export function attributeLoopDelay(windows: readonly LoopWindow[], limitMs: number): LoopAttribution {
  const over = windows.filter((w) => w.loopP99Ms > limitMs);
  const within = windows.filter((w) => w.loopP99Ms <= limitMs);
  const medianOf = (ws: readonly LoopWindow[], pick: (w: LoopWindow) => number | undefined) => {
    const values = ws.map(pick).filter((x): x is number => x !== undefined).sort((a, b) => a - b);
    return values.length ? percentile(values, 50) : undefined;
  };
  return {
    windows: windows.length,
    over: over.length,
    overWithLongGc: over.filter((w) => w.longGcPause).length,
    overRunMs: medianOf(over, (w) => w.mainRunMs),
    overWaitMs: medianOf(over, (w) => w.mainWaitMs),
    withinRunMs: medianOf(within, (w) => w.mainRunMs),
    withinWaitMs: medianOf(within, (w) => w.mainWaitMs),
  };
}
