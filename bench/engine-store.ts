/**
 * Timeline store benchmark: copy-on-write costs that must not depend on the base's size.
 *
 *   node --import ./src/typescript/register.mjs bench/engine-store.ts [--events 1000000] [--small 1000] [--keep]
 *
 * Prints the figures and writes bench/reports/engine-store.md. Ratios compare runs interleaved in one
 * process, so the machine's noise hits both sides alike. Loading and open-to-ready run in child processes
 * so their memory figures are their own.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { writeReport } from './lib/report.ts';
import { writeTargets } from './lib/targets.ts';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Level } from 'level';
import { LevelTimelineStore } from '../src/store/index.ts';
import { LEVEL_OPTIONS } from '../src/store/level/open-level-storage.ts';
import { generateSyntheticEvents, SYNTHETIC_DEFAULTS, syntheticEventId } from '../src/synthetic/generator.ts';
import { parseInstant } from '../src/time/index.ts';
import { RUN_TYPESCRIPT } from '../src/typescript/node-options.ts';

type Db = Level<Uint8Array, Uint8Array>;
const BIG_PLACES = 1000;
/** Few places on the small side, so a one-place search finds 10 events there too. */
const SMALL_PLACES = 10;
const START = parseInstant(SYNTHETIC_DEFAULTS.start);
const SPAN_SECONDS = Number(parseInstant(SYNTHETIC_DEFAULTS.end).seconds - START.seconds);
const MIB = 2 ** 20;
const NEW_EVENT = { description: 'written', time: parseInstant('1950-01-01T00:00:00Z'), location: 'place 0', causes: [] };

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};

async function openStore(dir: string): Promise<{ db: Db; store: LevelTimelineStore }> {
  const db: Db = new Level(dir, LEVEL_OPTIONS);
  await db.open();
  // Without the page and version caches, both sides read the store: a 10^3-event timeline would otherwise be
  // served wholly from the version cache and the ratios would measure the cache, not the indexes.
  const store = new LevelTimelineStore(db, { searchCacheBytes: 0, versionCacheBytes: 0 });
  await store.open();
  return { db, store };
}

async function directoryMiB(dir: string): Promise<number> {
  let bytes = 0;
  for (const name of await readdir(dir)) bytes += (await stat(join(dir, name))).size;
  return bytes / MIB;
}

// ------------------------------------------------------------------ child modes

async function childLoad(dir: string, events: number, places: number): Promise<void> {
  const { db, store } = await openStore(dir);
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await store.bulkLoad('primary', generateSyntheticEvents({ events, places, seed: 7 }), { batchSize: 5000 });
  const seconds = (performance.now() - started) / 1000;
  // CPU of every thread (LevelDB's too): on a shared machine, what the wall time is made of.
  const cpu = process.cpuUsage(cpuBefore);
  await store.close();
  await db.close();
  console.log(JSON.stringify({ seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, maxRssMiB: process.resourceUsage().maxRSS / 1024, diskMiB: await directoryMiB(dir) }));
}

async function childOpen(dir: string): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const baselineMiB = process.memoryUsage().rss / MIB;
  const started = performance.now();
  const { db, store } = await openStore(dir);
  const primary = await store.getTimeline('primary');
  const openMs = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 1000));
  gc?.();
  const idleRssMiB = process.memoryUsage().rss / MIB;
  await store.close();
  await db.close();
  console.log(JSON.stringify({ openMs, baselineMiB, idleRssMiB, events: primary?.event_count }));
}

/**
 * Heap kept per manipulation on a branch: its versions in the version index and the search index (the genesis
 * marker, the superseded version, the new event), with the page and version caches off, after collections.
 */
async function childVersions(dir: string, changes: number): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc!;
  const { db, store } = await openStore(dir);
  const { timeline_id: timeline } = await store.createTimeline({ kind: 'parallel', base_timeline_id: 'primary', description: 'changed', variation: 'v', owner: 'bench' });
  const manipulate = (i: number) => store.manipulate(timeline, syntheticEventId(i), { description: 'changed', changes: [] }, 'bench');
  // The first writes warm the code and the structures every later write shares.
  for (let i = 0; i < 100; i++) await manipulate(i);
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let done = 100; done < changes; done += 50) await Promise.all(Array.from({ length: Math.min(50, changes - done) }, (_, i) => manipulate(done + i)));
  gc();
  gc();
  const bytesPerChange = (process.memoryUsage().heapUsed - before) / (changes - 100);
  await store.close();
  await db.close();
  console.log(JSON.stringify({ bytesPerChange }));
}

function runChild<T>(mode: string, ...rest: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', ...RUN_TYPESCRIPT, fileURLToPath(import.meta.url), mode, ...rest], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as T) : reject(new Error(`${mode} failed (${code})`))));
  });
}

// ------------------------------------------------------------------ measurement helpers

interface Stats {
  median: number;
  p95: number;
  mean: number;
}

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const pick = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { median: pick(0.5), p95: pick(0.95), mean: samples.reduce((a, b) => a + b, 0) / samples.length };
}

/** Runs `a` and `b` alternately `rounds` times (after a warm-up) and returns their timings in ms. */
async function interleaved(rounds: number, a: (i: number) => Promise<unknown>, b: (i: number) => Promise<unknown>): Promise<[Stats, Stats]> {
  for (let i = 0; i < Math.min(50, rounds); i++) {
    await a(i);
    await b(i);
  }
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const first = i % 2 === 0;
    for (const [fn, into] of first ? ([[a, ta], [b, tb]] as const) : ([[b, tb], [a, ta]] as const)) {
      const started = performance.now();
      await fn(i);
      into.push(performance.now() - started);
    }
  }
  return [stats(ta), stats(tb)];
}

/** Deterministic pseudo-random integers, so both sides of a comparison get the same sequence. */
function sequence(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const fmt = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`);

/** A parallel of the small primary with `changes` new events of its own, written 50 at a time. */
async function writtenBranch(store: LevelTimelineStore, changes: number): Promise<string> {
  const { timeline_id: timeline } = await store.createTimeline({ kind: 'parallel', base_timeline_id: 'primary', description: 'written', variation: 'w', owner: 'bench' });
  for (let done = 0; done < changes; done += 50) {
    await Promise.all(Array.from({ length: Math.min(50, changes - done) }, () => store.insertEvent(timeline, NEW_EVENT, 'bench')));
  }
  return timeline;
}

// ------------------------------------------------------------------ main

async function main(): Promise<void> {
  const bigEvents = option('events', process.env['BENCH_QUICK'] === '1' ? 20_000 : 1_000_000);
  const smallEvents = option('small', 1000);
  const keep = args.includes('--keep');
  const root = await mkdtemp(join(tmpdir(), 'tms-bench-store-'));
  const bigDir = join(root, 'big');
  const smallDir = join(root, 'small');
  const load1 = loadavg()[0]!;
  console.log(`engine-store: ${bigEvents} vs ${smallEvents} events, data in ${root}`);

  const load = await runChild<{ seconds: number; cpuSeconds: number; maxRssMiB: number; diskMiB: number }>('--child-load', bigDir, String(bigEvents), String(BIG_PLACES));
  console.log(`load ${bigEvents}: ${load.seconds.toFixed(1)} s (${Math.round(bigEvents / load.seconds)} events/s, ${load.cpuSeconds.toFixed(1)} s CPU), peak RSS ${load.maxRssMiB.toFixed(0)} MiB, ${load.diskMiB.toFixed(0)} MiB on disk`);
  await runChild('--child-load', smallDir, String(smallEvents), String(SMALL_PLACES));

  const versionsDir = join(root, 'versions');
  const versionChanges = process.env['BENCH_QUICK'] === '1' ? 2000 : 20_000;
  await runChild('--child-load', versionsDir, String(versionChanges), String(BIG_PLACES));
  const { bytesPerChange } = await runChild<{ bytesPerChange: number }>('--child-versions', versionsDir, String(versionChanges));
  console.log(`heap kept per manipulation on a branch: ${bytesPerChange.toFixed(0)} bytes`);

  const opens: { openMs: number; baselineMiB: number; idleRssMiB: number; events: number }[] = [];
  for (let i = 0; i < 3; i++) opens.push(await runChild('--child-open', bigDir));
  const open = opens.sort((a, b) => a.openMs - b.openMs)[1]!;
  console.log(`open-to-ready (${open.events} events): ${open.openMs.toFixed(0)} ms (median of 3), idle RSS ${open.idleRssMiB.toFixed(0)} MiB (process before opening: ${open.baselineMiB.toFixed(0)} MiB)`);

  const big = await openStore(bigDir);
  const small = await openStore(smallDir);

  // Branch creation: one synced record write either way.
  const kinds = ['alternate', 'parallel'] as const;
  const branch = (store: LevelTimelineStore) => (i: number) =>
    store.createTimeline({ kind: kinds[i % 2]!, base_timeline_id: 'primary', description: 'bench', variation: i % 2 ? 'v' : '', owner: 'bench' });
  const [branchBig, branchSmall] = await interleaved(200, branch(big.store), branch(small.store));
  const branchRatio = branchBig.median / branchSmall.median;
  console.log(`branch creation: ${fmt(branchBig.median)} on ${bigEvents} vs ${fmt(branchSmall.median)} on ${smallEvents}: ratio ${branchRatio.toFixed(2)}`);

  // 10-result searches: time-only and by location words, from deterministic random starts.
  const searcher = (store: LevelTimelineStore, seed: number, words: boolean) => {
    const random = sequence(seed);
    return async () => {
      const start = { seconds: START.seconds + BigInt(Math.floor(random() * SPAN_SECONDS * 0.8)), nanos: 0, fractionDigits: 0 };
      const place = String(Math.floor(random() * SMALL_PLACES));
      const page = await store.search('primary', { words: words ? ['place', place] : [], start, pageSize: 10 });
      if (page.events.length !== 10) throw new Error(`search returned ${page.events.length} events`);
    };
  };
  const [timeBig, timeSmall] = await interleaved(2000, searcher(big.store, 1, false), searcher(small.store, 1, false));
  const [wordBig, wordSmall] = await interleaved(2000, searcher(big.store, 2, true), searcher(small.store, 2, true));
  const timeRatio = timeBig.median / timeSmall.median;
  const wordRatio = wordBig.median / wordSmall.median;
  console.log(`search, 10 results by time: ${fmt(timeBig.median)} vs ${fmt(timeSmall.median)}: ratio ${timeRatio.toFixed(2)}`);
  console.log(`search, 10 results by location: ${fmt(wordBig.median)} vs ${fmt(wordSmall.median)}: ratio ${wordRatio.toFixed(2)}`);

  // A 5-deep chain mixing kinds over the big primary, each level with its own changes.
  const chainKinds = ['alternate', 'parallel', 'alternate', 'parallel', 'parallel'] as const;
  let base = 'primary';
  const pick = sequence(3);
  const randomId = () => syntheticEventId(Math.floor(pick() * bigEvents));
  for (const kind of chainKinds) {
    const timeline = await big.store.createTimeline({ kind, base_timeline_id: base, description: 'chain', variation: kind === 'parallel' ? 'v' : '', owner: 'bench' });
    base = timeline.timeline_id;
    for (let i = 0; i < 40; i++) {
      await big.store
        .manipulate(base, randomId(), { description: 'chain change', changes: [{ action: 'reschedule', time: parseInstant('1950-01-01T00:00:00Z') }] }, 'bench')
        .catch(() => undefined); // an id drawn twice is already superseded
    }
  }
  const leaf = base;
  const reader = (timeline: string, seed: number) => {
    const random = sequence(seed);
    return async () => {
      const event = await big.store.getEvent(timeline, syntheticEventId(Math.floor(random() * bigEvents)));
      if (!event) throw new Error('event missing');
    };
  };
  const [readLeaf, readPrimary] = await interleaved(5000, reader(leaf, 4), reader('primary', 4));
  const readRatio = readLeaf.median / readPrimary.median;
  console.log(`read through a 5-deep chain: ${fmt(readLeaf.median)} vs ${fmt(readPrimary.median)} on primary: ratio ${readRatio.toFixed(2)}`);
  const leafSearch = (timeline: string) => {
    const random = sequence(5);
    return async () => {
      const start = { seconds: START.seconds + BigInt(Math.floor(random() * SPAN_SECONDS * 0.8)), nanos: 0, fractionDigits: 0 };
      await big.store.search(timeline, { words: [], start, pageSize: 10 });
    };
  };
  const [searchLeaf, searchPrimary] = await interleaved(1000, leafSearch(leaf), leafSearch('primary'));
  console.log(`search through the chain: ${fmt(searchLeaf.median)} vs ${fmt(searchPrimary.median)} on primary`);

  const graphTimes: number[] = [];
  let graphSize = { nodes: 0, edges: 0 };
  for (let i = 0; i < 4; i++) {
    const started = performance.now();
    const { graph } = await big.store.readCausalGraph(i % 2 ? leaf : 'primary');
    graphTimes.push(performance.now() - started);
    graphSize = { nodes: graph.eventIds.length, edges: graph.causeTargets.length };
  }
  console.log(`causal graph (${graphSize.nodes} nodes, ${graphSize.edges} edges): first ${graphTimes[0]!.toFixed(0)} ms, then ${graphTimes.slice(1).map((t) => t.toFixed(0)).join(' / ')} ms (primary, leaf, primary)`);

  // A timeline's record counts its events: right after a write, that must not cost more on a much-written branch.
  const manyChanges = process.env['BENCH_QUICK'] === '1' ? 2000 : 20_000;
  const fewChanges = manyChanges / 100;
  const written = [await writtenBranch(small.store, manyChanges), await writtenBranch(small.store, fewChanges)] as const;
  const recordTimes: [number[], number[]] = [[], []];
  for (let i = 0; i < 400; i++) {
    for (const side of i % 2 ? [1, 0] : [0, 1]) {
      const timeline = written[side]!;
      await small.store.insertEvent(timeline, NEW_EVENT, 'bench');
      const started = performance.now();
      await small.store.getTimeline(timeline);
      if (i >= 50) recordTimes[side]!.push(performance.now() - started);
    }
  }
  const [recordMany, recordFew] = recordTimes.map(stats) as [Stats, Stats];
  const recordRatio = recordMany.median / recordFew.median;
  console.log(`timeline record after a write: ${fmt(recordMany.median)} with ${manyChanges} changes vs ${fmt(recordFew.median)} with ${fewChanges}: ratio ${recordRatio.toFixed(2)}`);

  const writeTimes: number[] = [];
  for (let i = 0; i < 100; i++) {
    const started = performance.now();
    await big.store.manipulate('primary', syntheticEventId(bigEvents - 1 - i), { description: 'w', changes: [] }, 'bench');
    writeTimes.push(performance.now() - started);
  }
  const write = stats(writeTimes);

  await big.store.close();
  await big.db.close();
  await small.store.close();
  await small.db.close();
  if (!keep) await rm(root, { recursive: true, force: true });

  const cpu = cpus();
  const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
  const loadMet = load.seconds <= 20 && load.maxRssMiB <= 512;
  const report = `## engine-store

Run ${new Date().toISOString()} on Node ${process.version}, ${cpu.length} CPUs (${cpu[0]?.model ?? 'unknown'}), load average ${load1.toFixed(2)} at start.
Synthetic events from \`generateSyntheticEvents\` (${BIG_PLACES} places on the large side, ${SMALL_PLACES} on the small one; ~2 causes each).
Searches start at a random time in the first 80% of the range; location searches ask for one place (\`place <n>\`); the page and
version caches are off, so every search reads its page's records from LevelDB on both sides. Timings are medians of
interleaved runs; ratios compare the two sides of one run.

| what | figure | target |
|---|---|---|
| branch creation on ${bigEvents.toLocaleString('en')} vs ${smallEvents.toLocaleString('en')} events | ${fmt(branchBig.median)} vs ${fmt(branchSmall.median)}: **ratio ${branchRatio.toFixed(2)}** (p95 ${fmt(branchBig.p95)} vs ${fmt(branchSmall.p95)}) | ≤ 1.2: ${verdict(branchRatio <= 1.2)} |
| 10-result search by time, ${bigEvents.toLocaleString('en')} vs ${smallEvents.toLocaleString('en')} | ${fmt(timeBig.median)} vs ${fmt(timeSmall.median)}: **ratio ${timeRatio.toFixed(2)}** | ≤ 2: ${verdict(timeRatio <= 2)} |
| 10-result search by location words, same | ${fmt(wordBig.median)} vs ${fmt(wordSmall.median)}: **ratio ${wordRatio.toFixed(2)}** | ≤ 2: ${verdict(wordRatio <= 2)} |
| event read through a 5-deep chain vs primary | ${fmt(readLeaf.median)} vs ${fmt(readPrimary.median)}: **ratio ${readRatio.toFixed(2)}** | ≤ 3: ${verdict(readRatio <= 3)} |
| timeline record (with its event count) right after a write, branch with ${manyChanges.toLocaleString('en')} vs ${fewChanges.toLocaleString('en')} changes | ${fmt(recordMany.median)} vs ${fmt(recordFew.median)}: **ratio ${recordRatio.toFixed(2)}** (p95 ${fmt(recordMany.p95)} vs ${fmt(recordFew.p95)}) | ≤ 2: ${verdict(recordRatio <= 2)} |
| bulk load of ${bigEvents.toLocaleString('en')} events | ${load.seconds.toFixed(1)} s (${Math.round(bigEvents / load.seconds).toLocaleString('en')} events/s; ${load.cpuSeconds.toFixed(1)} s CPU, all threads), **peak RSS ${load.maxRssMiB.toFixed(0)} MiB**, ${load.diskMiB.toFixed(0)} MiB on disk | ≤ 20 s, RSS ≤ 512 MiB: ${verdict(loadMet)} |
| open-to-ready on ${bigEvents.toLocaleString('en')} events | **${open.openMs.toFixed(0)} ms**, idle RSS **${open.idleRssMiB.toFixed(0)} MiB** (${open.baselineMiB.toFixed(0)} MiB before opening: Node and its TypeScript hooks) | < 2 s, < 300 MiB: ${verdict(open.openMs < 2000 && open.idleRssMiB < 300)} |

Also measured:

- search through the 5-deep chain (40 changes per level) vs primary, 10 results by time: ${fmt(searchLeaf.median)} vs ${fmt(searchPrimary.median)}
- causal graph read of ${graphSize.nodes.toLocaleString('en')} nodes / ${graphSize.edges.toLocaleString('en')} edges: ${graphTimes[0]!.toFixed(0)} ms cold (snapshot decode), ${graphTimes.slice(1).map((t) => t.toFixed(0)).join(' / ')} ms warm (primary, leaf, primary)
- manipulate on the ${bigEvents.toLocaleString('en')}-event primary (one synced batch): median ${fmt(write.median)}, p95 ${fmt(write.p95)}
- heap kept per manipulation on a branch (${versionChanges.toLocaleString('en')} events manipulated once each, page and version caches off: the
  versions in memory and their search index entries): **${bytesPerChange.toFixed(0)} bytes**
- p95 search by time ${fmt(timeBig.p95)} vs ${fmt(timeSmall.p95)}; by location ${fmt(wordBig.p95)} vs ${fmt(wordSmall.p95)}
`;
  console.log(`\nwrote ${writeReport('engine-store', report)}`);
  writeTargets('engine-store', [
    {
      path: `bulk load of ${bigEvents.toLocaleString('en')} events (LevelDB)`,
      goal: '≤ 20 s, peak RSS ≤ 512 MiB',
      node: process.version,
      value: `${load.seconds.toFixed(1)} s, ${load.maxRssMiB.toFixed(0)} MiB`,
      met: loadMet,
    },
  ]);
}

if (args[0] === '--child-load') await childLoad(args[1]!, Number(args[2]), Number(args[3]));
else if (args[0] === '--child-open') await childOpen(args[1]!);
else if (args[0] === '--child-versions') await childVersions(args[1]!, Number(args[2]));
else await main();
