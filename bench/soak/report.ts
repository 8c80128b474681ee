/** The soak's report: soak.md (what ran, the checks, the figures and tables), soak.svg (memory and req/s over time) and soak.json. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lineChartSvg, type Series } from '../lib/chart.ts';
import { machineLine, percentile, reportsDir, table, writeReport } from '../lib/report.ts';
import { KINDS, type Tally } from './counting.ts';
import { FACES } from './faces.ts';
import { LOOP_P99_LIMIT_MS, LOOP_WINDOW_SHARE, median, mib, msText, sum, type LifeFigures, type SoakFigures, type Windows } from './figures.ts';
import type { LoopAttribution } from './loop-windows.ts';
import type { SoakOptions } from './options.ts';
import type { RunState } from './run-state.ts';
import type { ResidentParts } from './resident-parts.ts';

/** What the run was asked for: its command line, and the windows that follow from it. */
export interface Asked extends Windows {
  options: SoakOptions;
  durationS: number;
  concurrency: number;
  seed: number;
}

/** One row per kind of operation: its requests over each face, their outcomes, and the latency of the successful ones. */
const kindRows = (tallies: Map<string, Tally>) =>
  KINDS.map((kind) => {
    const byFace = FACES.map((face) => tallies.get(`${face} ${kind}`));
    const latencies = byFace.flatMap((t) => t?.latencies ?? []).sort((a, b) => a - b);
    const all = (pick: (t: Tally) => number) => byFace.reduce((n, t) => n + (t ? pick(t) : 0), 0);
    return [kind, ...byFace.map((t) => t?.requests ?? 0), all((t) => t.requests), all((t) => t.ok), all((t) => t.clientErrors), all((t) => t.shed), all((t) => t.serverErrors), all((t) => t.inFlightAtKill), all((t) => t.refusedWhileRestarting), msText(percentile(latencies, 50)), msText(percentile(latencies, 99))];
  });

const lifeRows = ({ kills, now }: RunState, lifeFigures: LifeFigures[]) =>
  lifeFigures.map((f) => [
    f.life.index,
    f.life.pid,
    f.life.readyAt.toFixed(1),
    f.life.loadFrom.toFixed(1),
    f.life.index === 1 ? '—' : ((f.life.readyAt - (kills[f.life.index - 2]?.at ?? f.life.spawnedAt)) * 1000).toFixed(0),
    (f.life.endedAt ?? now()).toFixed(1),
    f.life.killed ? 'kill -9' : 'SIGTERM (end)',
    mib(f.warmRss),
    mib(f.finalRss),
    f.growth === undefined ? 'not judged (too short)' : `${(f.growth * 100).toFixed(1)} %`,
    f.rssTrendPerHour === undefined ? '—' : f.rssTrendPerHour.toFixed(1),
    `${mib(f.warmHeap)} → ${mib(f.finalHeap)}`,
    `${mib(f.warmHeapTotal)} → ${mib(f.finalHeapTotal)}`,
    `${mib(f.warmExternal)} → ${mib(f.finalExternal)}`,
    `${mib(f.warmCache)} → ${mib(f.finalCache)}`,
    msText(percentile([...f.loop].sort((a, b) => a - b), 50)),
    msText(f.loop.length ? Math.max(...f.loop) : NaN),
    `${msText(f.majorGcPerMin)} / ${msText(f.longGcPausesPerMin)}`,
    `${msText(median(f.mainRun))} / ${msText(median(f.mainWait))}`,
  ]);

const partsRows = (lifeFigures: LifeFigures[]) =>
  lifeFigures.map((f) => {
    const part = (name: keyof ResidentParts) => `${mib(f.warmParts?.[name])} → ${mib(f.finalParts?.[name])}`;
    return [f.life.index, part('v8Pages'), part('malloc'), part('otherAnonymous'), part('files')];
  });

function chartSvg({ lives, samples, perSecond, kills, now }: RunState, { durationS, concurrency }: Asked): Promise<string> {
  const rssSeries: Series = { name: 'RSS (MiB)', points: [] };
  const cacheSeries: Series = { name: 'caches, by their estimate (MiB)', points: [] };
  const heapSeries: Series = { name: 'V8 heap used (MiB)', points: [] };
  for (const l of lives) {
    for (const s of samples.filter((x) => x.life === l.index)) {
      rssSeries.points.push({ x: s.at, y: s.rssMiB });
      cacheSeries.points.push({ x: s.at, y: s.cacheMiB ?? NaN });
      heapSeries.points.push({ x: s.at, y: s.heapMiB ?? NaN });
    }
    heapSeries.points.push({ x: l.endedAt ?? now(), y: NaN });
    rssSeries.points.push({ x: l.endedAt ?? now(), y: NaN });
    cacheSeries.points.push({ x: l.endedAt ?? now(), y: NaN });
  }
  const seconds = Math.ceil(lives.at(-1)?.endedAt ?? now());
  /** Requests completed per second, as a mean over the 5 seconds around each: one-second counts are too jagged to read. */
  const smoothed = (counts: number[]) =>
    Array.from({ length: seconds }, (_, second) => {
      let total = 0;
      for (let s = second - 2; s <= second + 2; s++) total += counts[s] ?? 0;
      return { x: second + 0.5, y: total / 5 };
    });
  const rateSeries: Series[] = FACES.map((face) => ({ name: `${face} req/s`, points: smoothed(perSecond.get(face)!) }));
  return lineChartSvg({
    title: `Soak: ${durationS < 60 ? `${durationS} s` : `${+(durationS / 60).toFixed(1)} min`}, ${concurrency} requests in flight, kill -9 at the red lines`,
    xTitle: 'seconds since start',
    left: { title: 'MiB', series: [rssSeries, heapSeries, cacheSeries] },
    right: { title: 'requests answered 2xx per second (5-s mean)', series: rateSeries },
    markers: kills.map((k, i) => ({ x: k.at, label: `kill ${i + 1}` })),
  });
}

/** The command that runs this soak again with the same seed: the same kill draws; requests interleave as they will. */
function replayCommand({ options, concurrency, seed }: Asked): string {
  return [
    'npm run soak --',
    options.seconds === undefined ? `--minutes ${options.minutes ?? 1}` : `--seconds ${options.seconds}`,
    `--concurrency ${concurrency}`,
    options.rate ? `--rate ${options.rate}` : '',
    options.kills === undefined ? '' : `--kills ${options.kills}`,
    `--seed ${seed}`,
  ]
    .filter(Boolean)
    .join(' ');
}

function overLimitText(a: LoopAttribution): string {
  const share = a.windows ? ` (${((a.over / a.windows) * 100).toFixed(1)} %)` : '';
  return `${a.over} of ${a.windows}${share} over ${LOOP_P99_LIMIT_MS} ms; ${a.overWithLongGc} of them with a collection pause over 10 ms in the same second; the request thread in them, median, on a CPU / waiting for one: ${msText(a.overRunMs)} / ${msText(a.overWaitMs)} ms (${msText(a.withinRunMs)} / ${msText(a.withinWaitMs)} in the others)`;
}

function markdown(run: RunState, figures: SoakFigures, asked: Asked): string {
  const { lives, tallies, ledger, readBacks, failures, idleLoop, loadAverages, now } = run;
  const { checks, passed, lifeFigures, requests, faceTotals, acknowledgedWrites, restarts, serverErrors, clientErrors, shed, inFlightAtKill, refused, firstWarm, lastFinal, loopMedian, loopShare, loopMax, loopAttribution } = figures;
  const { options, concurrency, warmupS, windowS } = asked;
  const loadSeconds = lives.reduce((n, l) => n + ((l.endedAt ?? now()) - l.loadFrom), 0);
  return `## Soak: mixed load with kill -9 and restarts

\`${replayCommand(asked)}\` (${machineLine()}). ${options.rate ? `${options.rate} operations started per second, at most ${concurrency}` : concurrency} requests in flight, each a random
operation over a random face (REST, Connect JSON over HTTP/1.1, gRPC with @grpc/grpc-js over h2c) against one tms
process on a LevelDB folder; the process was killed with SIGKILL ${restarts === 1 ? 'once' : `${restarts} times`} at random moments and restarted on
the same folder. Every acknowledged write (manipulation, revert, branch creation and deletion, anchor) was recorded
with what it returned and read back over REST after each restart and at the end, with the load paused: each live
branch's revision must count at least its acknowledged writes, and on it each touched event must stand as the last
acknowledged write left it (the manipulation's new event, or the original after a revert). A write whose answer a kill
swallowed may or may not have happened: the next read-back settles which, and it is counted apart, as are requests
caught in flight by a kill or refused while the next process started. **${passed ? 'Every check met.' : 'A check failed.'}**

![RSS and req/s over time, kills marked](soak.svg)

After each kill (red line) the rate drops to nothing while the next process starts and the read-back runs with the
load paused; that downtime counts in the run's time. The RSS line breaks between process lives.

${table(
  ['check', 'rule', 'measured', 'verdict'],
  checks.map((c) => [c.name, c.rule, c.measured, c.met ? 'met' : '**failed**']),
)}

${table(
  ['figure', 'value'],
  [
    ['requests', `${requests} (REST ${faceTotals[0]}, Connect ${faceTotals[1]}, gRPC ${faceTotals[2]}); ${(sum(tallies, (t) => t.ok) / Math.max(1, loadSeconds)).toFixed(0)} answered 2xx per second while up`],
    ['writes acknowledged', `${acknowledgedWrites}: ${ledger.manipulations} manipulations, ${ledger.reverts} reverts, ${ledger.branchesCreated} branches created, ${ledger.branchesDeleted} deleted, ${ledger.anchors.length} anchors`],
    ['writes lost', String(ledger.lost.length)],
    ['writes unanswered at a kill', `${ledger.unanswered} (${ledger.unansweredApplied} found applied)`],
    ['5xx outside restarts', String(serverErrors)],
    ['4xx other than 429', String(clientErrors)],
    ['429, turned away with a retry hint and retried after it (password checks queued full)', String(shed)],
    ['caught in flight by a kill', String(inFlightAtKill)],
    ['refused while restarting', String(refused)],
    ['restarts', String(restarts)],
    ['RSS at start (first life, after warm-up) / at end (last life, last window)', `${mib(firstWarm)} / ${mib(lastFinal)} MiB`],
    ['event-loop delay p99 (1-s windows after warm-up)', `median ${msText(loopMedian)} ms, ${LOOP_WINDOW_SHARE * 100} % of windows ≤ ${msText(loopShare)} ms, worst ${msText(loopMax)} ms`],
    ['the request thread, per second after warm-up (median): on a CPU / runnable but waiting for one (/proc/<pid>/schedstat)', `${msText(median(lifeFigures.flatMap((f) => f.mainRun)))} / ${msText(median(lifeFigures.flatMap((f) => f.mainWait)))} ms`],
    ['seconds whose loop-delay p99 went over the limit', overLimitText(loopAttribution)],
    ['event-loop delay p99 of the idle service before the load', `${idleLoop.map(msText).join(', ')} ms (10 ms on a quiet machine: the sampling interval)`],
    ['machine load average (1 min) at the start / end of the load', loadAverages.map((x) => x.toFixed(1)).join(' / ')],
  ],
)}

Requests by kind and face (latency of the successful ones):

${table(['kind', 'REST', 'Connect', 'gRPC', 'total', 'ok', '4xx other than 429', '429 (retried)', '5xx outside restarts', 'in flight at a kill', 'refused while restarting', 'p50 ms', 'p99 ms'], kindRows(tallies))}

Process lives (times in seconds since the start; RSS from \`/proc/<pid>/status\` every second; loop delay from the
process's \`tms_nodejs_eventloop_lag_p99_seconds\` on \`/metrics\`, which prom-client resets at every scrape, so each
sample covers the second before it):

${table(['life', 'pid', 'ready at', 'load from', 'ready after kill, ms', 'ended at', 'ended by', 'RSS after warm-up MiB (lower quartile)', 'RSS at end MiB (lower quartile)', 'growth', 'RSS trend after warm-up, MiB an hour', 'V8 heap used MiB', 'V8 heap reserved MiB', 'Buffers and ArrayBuffers MiB', 'caches MiB (tms_cache_bytes)', 'loop p99 median ms', 'loop p99 worst ms', 'collections a minute: full / pauses over 10 ms', 'request thread on a CPU / waiting for one, ms per s (median)'], lifeRows(run, lifeFigures))}

Where each life's resident memory was, from \`/proc/<pid>/smaps\` every 5 s (each part's lower quartile in the
window after warm-up → in the last window, MiB; the V8 counters above cover the request thread's heap only):

${table(['life', "V8 heap pages, every thread's (256-KiB mappings)", "malloc arenas (the main one and the threads')", 'other anonymous (large objects and allocations, stacks)', 'mapped files'], partsRows(lifeFigures))}

Read-backs:

${table(
  ['after', 'at s', 'checked', 'settled (unanswered writes)', 'lost', 'ms'],
  readBacks.map((r) => [r.after, r.at.toFixed(1), r.checked, r.settled, r.lost, r.ms.toFixed(0)]),
)}
${ledger.lost.length ? `\nLost writes:\n\n${ledger.lost.slice(0, 30).map((line) => `- ${line}`).join('\n')}\n` : ''}${failures.length ? `\nFailed requests (first ${failures.length}):\n\n${failures.map((line) => `- ${line}`).join('\n')}\n` : ''}
Memory rule: a process life is judged when it lasted at least ${(warmupS + 2 * windowS).toFixed(0)} s: the lower quartile of RSS over its last
${windowS.toFixed(0)} s may exceed that of the ${windowS.toFixed(0)} s after its first ${warmupS.toFixed(0)} s (warm-up) by at most 10 %. The lower quartile, not
the median: a login's password hash maps 32 MiB while it runs, and with one running in about half of the seconds the
median of a window falls on either of two levels 32 MiB apart. Each restart
begins a new life with cold caches, so lives are not compared with each other. Kills are spaced, allowing for the longest
restart and read-back seen so far, so that each life lasts that long; one that still ends shorter (a slower restart) is not judged.
The RSS trend is the slope of the least-squares line through a life's samples after warm-up, in MiB an hour, for lives that ran
at least 10 minutes after it: shown, not judged; a leak shows as a steady rise that the heap's sawtooth does not hide.
Collections a minute come from the process's \`tms_nodejs_gc_duration_seconds\` histogram over the life after warm-up: full
(mark-compact) collections, and pauses of any kind over 10 ms, each of which shows in that second's loop-delay p99.
`;
}

function summaryJson(run: RunState, figures: SoakFigures, { durationS, seed }: Asked): string {
  const { ledger, readBacks, idleLoop, loadAverages, failures, samples } = run;
  const { passed, requests, faceTotals, acknowledgedWrites, serverErrors, clientErrors, shed, inFlightAtKill, refused, restarts, firstWarm, lastFinal, worstGrowth, loopMedian, loopMax, loopAttribution, checks, lifeFigures } = figures;
  return JSON.stringify(
    {
      passed,
      seconds: durationS,
      seed,
      requests,
      byFace: Object.fromEntries(FACES.map((face, i) => [face, faceTotals[i]])),
      writesAcknowledged: acknowledgedWrites,
      writesLost: ledger.lost.length,
      lost: ledger.lost,
      serverErrorsOutsideRestarts: serverErrors,
      clientErrors,
      shed,
      inFlightAtKill,
      refusedWhileRestarting: refused,
      restarts,
      readBacks: readBacks.length,
      rssStartMiB: firstWarm,
      rssEndMiB: lastFinal,
      worstRssGrowth: worstGrowth,
      lives: lifeFigures.map((f) => ({ life: f.life.index, rssAfterWarmupMiB: f.warmRss, rssAtEndMiB: f.finalRss, growth: f.growth, rssTrendMiBPerHour: f.rssTrendPerHour, majorGcPerMin: f.majorGcPerMin, longGcPausesPerMin: f.longGcPausesPerMin })),
      loopP99MedianMs: loopMedian,
      loopP99WorstMs: loopMax,
      loopOverLimit: loopAttribution,
      idleLoopP99Ms: idleLoop,
      loadAverages,
      checks,
      failures,
      samples,
    },
    null,
    2,
  ) + '\n';
}

/** Writes soak.md, soak.svg and soak.json to the reports folder; returns where the report and the chart went. */
export async function writeSoakReport(run: RunState, figures: SoakFigures, asked: Asked): Promise<{ reportPath: string; chartPath: string }> {
  const chartPath = join(reportsDir, 'soak.svg');
  const svg = await chartSvg(run, asked);
  const reportPath = writeReport('soak', markdown(run, figures, asked));
  writeFileSync(chartPath, svg);
  writeFileSync(join(reportsDir, 'soak.json'), summaryJson(run, figures, asked));
  return { reportPath, chartPath };
}
