/** What the run's records add up to: each process life's figures, the run's totals, and the checks they are judged by. */
import { percentile, slope } from '../lib/report.ts';
import type { Tally } from './counting.ts';
import { FACES } from './faces.ts';
import type { Life } from './lives.ts';
import type { RunState } from './run-state.ts';
import type { GcCounts } from './process-samples.ts';
import { attributeLoopDelay, loopWindows, type LoopWindow } from './loop-windows.ts';
import type { Sample } from './sampler.ts';
import type { ResidentParts } from './resident-parts.ts';

const RSS_GROWTH_LIMIT = 0.1;
/** The shortest stretch after warm-up whose RSS trend is reported. */
const TREND_MIN_S = 600;
/** prom-client samples the loop every 10 ms, so an idle loop reads 10 ms; the project's target is 20 ms p99. */
export const LOOP_P99_LIMIT_MS = 20;
export const LOOP_WINDOW_SHARE = 0.9;

export const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);
/**
 * A window's resident memory is its lower quartile: each login's password hash maps 32 MiB for as long as it runs,
 * and with one running in about half of the seconds a window's median jumps between two levels 32 MiB apart.
 */
export const residentFloor = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 25);
export const mib = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '—' : x.toFixed(1));
export const msText = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '—' : x.toFixed(1));

export interface LifeFigures {
  life: Life;
  warmRss?: number;
  finalRss?: number;
  growth?: number;
  /** The least-squares slope of RSS over the life after warm-up, in MiB an hour: a leak shows as a steady rise. */
  rssTrendPerHour?: number;
  warmCache?: number;
  finalCache?: number;
  warmHeap?: number;
  finalHeap?: number;
  warmHeapTotal?: number;
  finalHeapTotal?: number;
  warmExternal?: number;
  finalExternal?: number;
  /** Where the resident memory was in the two windows (/proc/<pid>/smaps), each part's lower quartile. */
  warmParts?: ResidentParts;
  finalParts?: ResidentParts;
  loop: number[];
  /** The same seconds with what else happened in them. */
  loopWindows: LoopWindow[];
  /** Full collections, and pauses over 10 ms, a minute after warm-up. */
  majorGcPerMin?: number;
  longGcPausesPerMin?: number;
  /** Per second after warm-up: ms the request thread ran, and ms it waited for a CPU. */
  mainRun: number[];
  mainWait: number[];
}

/** The warm-up left out of each life's figures, and the length of the memory windows compared after it. */
export interface Windows {
  warmupS: number;
  windowS: number;
}

export interface Check {
  name: string;
  rule: string;
  measured: string;
  met: boolean;
}

/** Each process life's memory and loop-delay figures, after its warm-up; a life too short to hold both windows is not judged. */
function lifeFiguresOf({ lives, samples, now }: RunState, { warmupS, windowS }: Windows): LifeFigures[] {
  return lives.map((l) => {
    const mine = samples.filter((s) => s.life === l.index);
    const end = l.endedAt ?? now();
    const judged = end - l.loadFrom >= warmupS + 2 * windowS;
    const warm = mine.filter((s) => s.at >= l.loadFrom + warmupS && s.at < l.loadFrom + warmupS + windowS).map((s) => s.rssMiB);
    const final = mine.filter((s) => s.at >= end - windowS).map((s) => s.rssMiB);
    const within = (pick: (s: Sample) => number | undefined, from: number, to: number) =>
      mine.filter((s) => s.at >= from && s.at < to && pick(s) !== undefined).map((s) => pick(s)!);
    const warmWindow = (pick: (s: Sample) => number | undefined) => {
      const values = within(pick, l.loadFrom + warmupS, l.loadFrom + warmupS + windowS);
      return judged && values.length ? median(values) : undefined;
    };
    const finalWindow = (pick: (s: Sample) => number | undefined) => {
      const values = within(pick, end - windowS, Infinity);
      return judged && values.length ? median(values) : undefined;
    };
    const partsWithin = (from: number, to: number): ResidentParts | undefined => {
      const found = mine.filter((s) => s.parts && s.at >= from && s.at < to).map((s) => s.parts!);
      if (!judged || found.length === 0) return undefined;
      const floor = (part: keyof ResidentParts) => residentFloor(found.map((parts) => parts[part]));
      return { v8Pages: floor('v8Pages'), malloc: floor('malloc'), otherAnonymous: floor('otherAnonymous'), files: floor('files') };
    };
    const warmRss = judged && warm.length ? residentFloor(warm) : undefined;
    const finalRss = judged && final.length ? residentFloor(final) : undefined;
    const windows = loopWindows(mine, l.loadFrom + warmupS);
    const mainRun = within((s) => s.mainRunMs, l.loadFrom + warmupS, Infinity);
    const mainWait = within((s) => s.mainWaitMs, l.loadFrom + warmupS, Infinity);
    const counted = mine.filter((s) => s.at >= l.loadFrom + warmupS && s.gc !== undefined);
    const [firstGc, lastGc] = [counted[0], counted.at(-1)];
    const gcMinutes = firstGc && lastGc ? (lastGc.at - firstGc.at) / 60 : 0;
    const gcRate = (pick: (gc: GcCounts) => number) => (gcMinutes > 0 ? (pick(lastGc!.gc!) - pick(firstGc!.gc!)) / gcMinutes : undefined);
    // A slope over seconds says nothing of an hour: lives judged for less than ten minutes get none.
    const trend = end - l.loadFrom - warmupS >= TREND_MIN_S ? slope(mine.filter((s) => s.at >= l.loadFrom + warmupS).map((s) => ({ x: s.at, y: s.rssMiB }))) : undefined;
    return {
      life: l,
      warmRss,
      finalRss,
      growth: warmRss && finalRss ? finalRss / warmRss - 1 : undefined,
      rssTrendPerHour: trend === undefined ? undefined : trend * 3600,
      warmCache: warmWindow((s) => s.cacheMiB),
      finalCache: finalWindow((s) => s.cacheMiB),
      warmHeap: warmWindow((s) => s.heapMiB),
      finalHeap: finalWindow((s) => s.heapMiB),
      warmHeapTotal: warmWindow((s) => s.heapTotalMiB),
      finalHeapTotal: finalWindow((s) => s.heapTotalMiB),
      warmExternal: warmWindow((s) => s.externalMiB),
      finalExternal: finalWindow((s) => s.externalMiB),
      warmParts: partsWithin(l.loadFrom + warmupS, l.loadFrom + warmupS + windowS),
      finalParts: partsWithin(end - windowS, Infinity),
      loop: windows.map((w) => w.loopP99Ms),
      loopWindows: windows,
      majorGcPerMin: gcRate((gc) => gc.major),
      longGcPausesPerMin: gcRate((gc) => gc.over10ms),
      mainRun,
      mainWait,
    };
  });
}

/** A tally's count summed over every face and kind, or over the keys ("REST search") the filter keeps. */
export const sum = (tallies: Map<string, Tally>, pick: (t: Tally) => number, filter: (key: string) => boolean = () => true) =>
  [...tallies.entries()].filter(([key]) => filter(key)).reduce((n, [, t]) => n + pick(t), 0);

export function soakFigures(run: RunState, fatal: string | undefined, windows: Windows) {
  const { lives, samples, tallies, ledger, kills } = run;
  const { warmupS, windowS } = windows;
  const lifeFigures = lifeFiguresOf(run, windows);
  const allLoop = lifeFigures.flatMap((f) => f.loop).sort((a, b) => a - b);
  const loopMedian = percentile(allLoop, 50);
  const loopShare = percentile(allLoop, LOOP_WINDOW_SHARE * 100);
  const loopMax = allLoop.at(-1);
  const loopAttribution = attributeLoopDelay(lifeFigures.flatMap((f) => f.loopWindows), LOOP_P99_LIMIT_MS);
  const judgedLives = lifeFigures.filter((f) => f.growth !== undefined);
  const worstGrowth = judgedLives.length ? Math.max(...judgedLives.map((f) => f.growth!)) : undefined;

  const requests = sum(tallies, (t) => t.requests);
  const faceTotals = FACES.map((face) => sum(tallies, (t) => t.requests, (key) => key.startsWith(`${face} `)));
  const serverErrors = sum(tallies, (t) => t.serverErrors);
  const clientErrors = sum(tallies, (t) => t.clientErrors);
  const shed = sum(tallies, (t) => t.shed);
  const inFlightAtKill = sum(tallies, (t) => t.inFlightAtKill);
  const refused = sum(tallies, (t) => t.refusedWhileRestarting);
  const acknowledgedWrites = ledger.manipulations + ledger.reverts + ledger.branchesCreated + ledger.branchesDeleted + ledger.anchors.length;
  const restarts = kills.length;
  const firstWarm = lifeFigures.find((f) => f.warmRss !== undefined)?.warmRss ?? samples[0]?.rssMiB;
  const lastFinal = [...lifeFigures].reverse().find((f) => f.finalRss !== undefined)?.finalRss ?? samples.at(-1)?.rssMiB;

  const checks: Check[] = [
    { name: 'the run completed', rule: 'every restart came up; every read-back could read', measured: fatal ? fatal.split('\n')[0]! : 'yes', met: !fatal },
    { name: 'at least one kill -9 and restart', rule: '≥ 1', measured: String(restarts), met: restarts >= 1 },
    { name: 'acknowledged writes lost', rule: '0', measured: String(ledger.lost.length), met: ledger.lost.length === 0 },
    { name: '5xx (or no answer) outside restarts', rule: '0', measured: String(serverErrors), met: serverErrors === 0 },
    { name: '4xx (every request sent is valid)', rule: '0', measured: String(clientErrors), met: clientErrors === 0 },
    {
      name: 'RSS growth after warm-up, per process life',
      rule: `lower quartile of RSS over the last ${windowS.toFixed(0)} s of each life ≤ 1.10 × that of the ${windowS.toFixed(0)} s after its first ${warmupS.toFixed(0)} s`,
      measured: worstGrowth === undefined ? 'no life long enough' : `worst ${(worstGrowth * 100).toFixed(1)} % (${judgedLives.length} of ${lives.length} lives judged)`,
      met: worstGrowth !== undefined && worstGrowth <= RSS_GROWTH_LIMIT,
    },
    {
      name: 'event-loop delay p99',
      rule: `in ${LOOP_WINDOW_SHARE * 100} % of the 1-s windows after warm-up, p99 ≤ ${LOOP_P99_LIMIT_MS} ms (10 ms of it is the sampling interval)`,
      measured: `${msText(loopShare)} ms in ${LOOP_WINDOW_SHARE * 100} % of windows; median ${msText(loopMedian)} ms, worst ${msText(loopMax)} ms`,
      met: allLoop.length > 0 && loopShare <= LOOP_P99_LIMIT_MS,
    },
  ];
  const passed = checks.every((c) => c.met);
  return { lifeFigures, loopMedian, loopShare, loopMax, loopAttribution, worstGrowth, requests, faceTotals, serverErrors, clientErrors, shed, inFlightAtKill, refused, acknowledgedWrites, restarts, firstWarm, lastFinal, checks, passed };
}
export type SoakFigures = ReturnType<typeof soakFigures>;
