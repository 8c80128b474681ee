/**
 * The timeline store on PostgreSQL beside the same store on LevelDB, in one run: bulk load, uncached
 * 10-result searches (p50, p99), branch creation on a big base against a small one, and write throughput.
 *
 *   scripts/with-postgres.sh node --import ./src/typescript/register.mjs bench/postgres-store.ts [--events 1000000] [--small 1000]
 *
 * Needs TMS_BENCH_DATABASE_URL or TMS_TEST_DATABASE_URL: a database in which it may create (and then drops)
 * its schemas. Writes bench/reports/postgres-store.md.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openStorage, type Storage } from '../src/store/storage.ts';
import { openPostgresStorage } from '../src/store/postgres/open-postgres-storage.ts';
import type { TimelineStore } from '../src/store/types.ts';
import type { OperationDeps } from '../src/api/deps.ts';
import { safetyCheck } from '../src/api/operations/safety-check.ts';
import { AnalysisPool } from '../src/analysis/pool.ts';
import { syntheticEventId } from '../src/synthetic/generator.ts';
import { generateSyntheticEvents, SYNTHETIC_DEFAULTS } from '../src/synthetic/generator.ts';
import { parseInstant } from '../src/time/index.ts';
import { machineLine, percentile, table, writeReport } from './lib/report.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const url = process.env.TMS_BENCH_DATABASE_URL ?? process.env.TMS_TEST_DATABASE_URL;
if (!url) throw new Error('set TMS_BENCH_DATABASE_URL, or run under scripts/with-postgres.sh');

const BIG_PLACES = 1000;
const SMALL_PLACES = 10;
const START = parseInstant(SYNTHETIC_DEFAULTS.start);
const SPAN_SECONDS = Number(parseInstant(SYNTHETIC_DEFAULTS.end).seconds - START.seconds);
/** Every search reads the backend: no page cache. */
const UNCACHED = { searchCacheBytes: 0 };

interface Side {
  name: 'LevelDB' | 'PostgreSQL';
  big: Storage;
  small: Storage;
  loadSeconds: number;
  cleanup(): Promise<void>;
}

async function load(storage: Storage, events: number, places: number): Promise<number> {
  const started = performance.now();
  await storage.timelines.bulkLoad('primary', generateSyntheticEvents({ events, places, seed: 7 }), { batchSize: 5000 });
  return (performance.now() - started) / 1000;
}

async function levelSide(events: number, small: number): Promise<Side> {
  const root = await mkdtemp(join(tmpdir(), 'tms-bench-pg-level-'));
  const big = await openStorage({ dataDir: join(root, 'big'), timelineOptions: UNCACHED });
  const smallStore = await openStorage({ dataDir: join(root, 'small'), timelineOptions: UNCACHED });
  const loadSeconds = await load(big, events, BIG_PLACES);
  await load(smallStore, small, SMALL_PLACES);
  return { name: 'LevelDB', big, small: smallStore, loadSeconds, cleanup: () => rm(root, { recursive: true, force: true }) };
}

async function postgresSide(databaseUrl: string, events: number, small: number): Promise<Side> {
  const schemas = ['bench_big', 'bench_small'];
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  const big = await openPostgresStorage({ url: databaseUrl, schema: 'bench_big', timelineOptions: UNCACHED });
  const smallStore = await openPostgresStorage({ url: databaseUrl, schema: 'bench_small', timelineOptions: UNCACHED });
  const loadSeconds = await load(big, events, BIG_PLACES);
  await load(smallStore, small, SMALL_PLACES);
  await admin.query('ANALYZE bench_big.timeline_kv; ANALYZE bench_small.timeline_kv');
  return {
    name: 'PostgreSQL',
    big,
    small: smallStore,
    loadSeconds,
    async cleanup() {
      for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    },
  };
}

/** Deterministic pseudo-random numbers, so both sides get the same sequence. */
function sequence(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

interface Stats {
  p50: number;
  p99: number;
}

/** Runs each side's task in turn (after a warm-up), `rounds` times, so the machine's noise hits all alike. */
async function interleaved(rounds: number, tasks: ((i: number) => Promise<unknown>)[]): Promise<Stats[]> {
  for (let i = 0; i < Math.min(50, rounds); i++) for (const task of tasks) await task(i);
  const times = tasks.map(() => [] as number[]);
  for (let i = 0; i < rounds; i++) {
    for (let k = 0; k < tasks.length; k++) {
      const j = (i + k) % tasks.length;
      const started = performance.now();
      await tasks[j]!(i);
      times[j]!.push(performance.now() - started);
    }
  }
  return times.map((list) => {
    const sorted = list.sort((a, b) => a - b);
    return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
  });
}

const searcher = (store: TimelineStore, seed: number) => {
  const random = sequence(seed);
  return async () => {
    const start = { seconds: START.seconds + BigInt(Math.floor(random() * SPAN_SECONDS * 0.8)), nanos: 0, fractionDigits: 0 };
    const page = await store.search('primary', { words: ['place', String(Math.floor(random() * SMALL_PLACES))], start, pageSize: 10 });
    if (page.events.length !== 10) throw new Error(`search returned ${page.events.length} events`);
  };
};

const branch = (store: TimelineStore) => (i: number) =>
  store.createTimeline({ kind: i % 2 ? 'parallel' : 'alternate', base_timeline_id: 'primary', description: 'bench', variation: i % 2 ? 'v' : '', owner: 'bench' });

/**
 * Writes per second: `writers` timelines, each written in turn by its own loop, for `total` writes; the
 * loops are spread over `nodes` (stores open on the same data, as separate tms nodes would be).
 */
async function writeRate(nodes: TimelineStore[], writers: number, total: number): Promise<number> {
  const timelines = await Promise.all(
    Array.from({ length: writers }, () => nodes[0]!.createTimeline({ kind: 'parallel', base_timeline_id: 'primary', description: 'w', variation: 'v', owner: 'bench' })),
  );
  const event = { description: 'bench write', time: parseInstant('1950-01-01T00:00:00Z'), location: 'Bench, Nowhere', causes: [] };
  const started = performance.now();
  await Promise.all(
    timelines.map(async (timeline, i) => {
      const node = nodes[i % nodes.length]!;
      for (let k = 0; k < total / writers; k++) await node.insertEvent(timeline.timeline_id, event, 'bench');
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

interface WritesDuringChecks {
  checkP50: number;
  writes: number;
  writeP50: number;
  writeMax: number;
}

/**
 * Safety-checked manipulations of primary's events on a branch, one after another, while `writer` inserts events
 * into `target` one at a time: the writes' latency while the checks run.
 */
async function writesDuringChecks(checker: TimelineStore, writer: TimelineStore, target: string, checked: string, checks: number): Promise<WritesDuringChecks> {
  const pool = new AnalysisPool();
  const deps = { store: checker, pool } as unknown as OperationDeps;
  const event = { description: 'written meanwhile', time: parseInstant('1950-01-01T00:00:00Z'), location: 'Bench, Nowhere', causes: [] };
  const outcome = { description: 'checked', changes: [{ action: 'observe', time: parseInstant('1950-01-01T00:00:00Z') }] };
  const checkTimes: number[] = [];
  const writeTimes: number[] = [];
  let checking = true;
  const writes = (async () => {
    while (checking) {
      const started = performance.now();
      await writer.insertEvent(target, event, 'bench');
      writeTimes.push(performance.now() - started);
    }
  })();
  try {
    for (let i = 0; i < checks; i++) {
      const started = performance.now();
      await checker.manipulate(checked, syntheticEventId(i * 997), outcome, 'bench', safetyCheck(deps, checked));
      checkTimes.push(performance.now() - started);
    }
  } finally {
    checking = false;
    await writes;
    await pool.close();
  }
  checkTimes.sort((a, b) => a - b);
  writeTimes.sort((a, b) => a - b);
  return { checkP50: percentile(checkTimes, 50), writes: writeTimes.length, writeP50: percentile(writeTimes, 50), writeMax: writeTimes.at(-1)! };
}

const ms = (value: number) => (value < 1 ? `${(value * 1000).toFixed(0)} µs` : `${value.toFixed(2)} ms`);
const checkCells = (run: WritesDuringChecks) => [ms(run.checkP50), String(run.writes), ms(run.writeP50), ms(run.writeMax)];
/** Safety-checked writes in the "writes while safety checks run" rows. */
const CHECKS = 10;

async function main(): Promise<void> {
  const events = option('events', 1_000_000);
  const small = option('small', 1000);
  const load1 = loadavg()[0]!;
  console.log(`postgres-store: ${events} vs ${small} events on LevelDB and PostgreSQL`);
  const sides = [await levelSide(events, small), await postgresSide(url!, events, small)];
  for (const side of sides) console.log(`${side.name}: loaded ${events} in ${side.loadSeconds.toFixed(1)} s`);
  try {
    const searches = await interleaved(1000, sides.map((side) => searcher(side.big.timelines, 1)));
    const branches = await interleaved(100, sides.flatMap((side) => [branch(side.big.timelines), branch(side.small.timelines)]));
    const writes: { one: number; four: number }[] = [];
    for (const side of sides) writes.push({ one: await writeRate([side.big.timelines], 1, 500), four: await writeRate([side.big.timelines], 4, 1000) });
    // A second node on the PostgreSQL store: each node drives two of the four writers.
    const secondNode = await openPostgresStorage({ url: url!, schema: 'bench_big', timelineOptions: UNCACHED });
    let twoNodes: number;
    const duringChecks: WritesDuringChecks[] = [];
    try {
      twoNodes = await writeRate([sides[1]!.big.timelines, secondNode.timelines], 4, 1000);
      const branchOf = (store: TimelineStore) =>
        store.createTimeline({ kind: 'alternate', base_timeline_id: 'primary', description: 'checked', variation: '', owner: 'bench' }).then((t) => t.timeline_id);
      const [levelChecked, levelTarget] = [await branchOf(sides[0]!.big.timelines), await branchOf(sides[0]!.big.timelines)];
      duringChecks.push(await writesDuringChecks(sides[0]!.big.timelines, sides[0]!.big.timelines, levelTarget, levelChecked, CHECKS));
      const [pgChecked, pgTarget] = [await branchOf(sides[1]!.big.timelines), await branchOf(secondNode.timelines)];
      duringChecks.push(await writesDuringChecks(sides[1]!.big.timelines, secondNode.timelines, pgTarget, pgChecked, CHECKS));
      const pgWritten = await branchOf(sides[1]!.big.timelines);
      duringChecks.push(await writesDuringChecks(sides[1]!.big.timelines, secondNode.timelines, pgWritten, pgWritten, CHECKS));
    } finally {
      await secondNode.close();
    }
    const rows = sides.map((side, i) => {
      const [big, smallBranch] = [branches[2 * i]!, branches[2 * i + 1]!];
      return [
        side.name,
        `${side.loadSeconds.toFixed(1)} s (${Math.round(events / side.loadSeconds)}/s)`,
        ms(searches[i]!.p50),
        ms(searches[i]!.p99),
        `${ms(big.p50)} / ${ms(smallBranch.p50)} = ${(big.p50 / smallBranch.p50).toFixed(2)}`,
        `${Math.round(writes[i]!.one)}/s`,
        `${Math.round(writes[i]!.four)}/s`,
        side.name === 'PostgreSQL' ? `${Math.round(twoNodes)}/s` : 'n/a',
      ];
    });
    for (const row of rows) console.log(row.join(' | '));
    const checkRows = [
      ['LevelDB', 'another branch, same node', ...checkCells(duringChecks[0]!)],
      ['PostgreSQL', 'another branch, from a second node', ...checkCells(duringChecks[1]!)],
      ['PostgreSQL', 'the checked branch, from a second node', ...checkCells(duringChecks[2]!)],
    ];
    for (const row of checkRows) console.log(row.join(' | '));
    const pgSearch = searches[1]!;
    const pgBranchRatio = branches[2]!.p50 / branches[3]!.p50;
    writeReport(
      'postgres-store',
      `## Timeline store on PostgreSQL beside LevelDB (\`bench/postgres-store.ts\`)

${machineLine()}; load average ${load1.toFixed(2)} at start; PostgreSQL on the same machine (pg_virtualenv), one node.
${events.toLocaleString('en')} synthetic events (${BIG_PLACES} places) against ${small.toLocaleString('en')} (${SMALL_PLACES} places); the page cache off, so
every search reads the backend. Searches: 10 results by two location words from a random start, 1000
rounds interleaved between the backends. Branch creation: median of 100 alternates and parallels, big base
over small base. Writes: \`insertEvent\` on parallel branches of the big primary, one writer (500 writes) and
four writers on four timelines (1000 writes), from one node and then from two nodes (two writers each; every
commit of either node takes the one \`tms_clock\` row, so commits are serialised across nodes).

${table(['backend', 'bulk load', 'search p50', 'search p99', 'branch big / small', 'writes, 1 writer', 'writes, 4 writers', 'writes, 4 writers on 2 nodes'], rows)}

Writes while safety checks run: ${CHECKS} safety-checked manipulations (\`safety_check: true\`: the causal graph before
and after, analysed in the worker pool) of primary's events on an alternate of the big primary, one after another,
while one writer inserts events one at a time. On PostgreSQL a check runs before its write's commit, which holds
every node's commits; the commit takes its verdict when nothing it read changed meanwhile, and checks again
otherwise (the last row, where the writer changes the checked branch). On LevelDB a commit holds only its own
timeline's writes, and the check runs in the write's turn.

${table(['backend', 'writer', 'safety check p50', 'writes meanwhile', 'write p50', 'worst write'], checkRows)}

- PostgreSQL uncached search p99: ${ms(pgSearch.p99)} (target ≤ 10 ms): ${pgSearch.p99 <= 10 ? 'met' : 'not met'}.
- PostgreSQL branch creation ratio ${pgBranchRatio.toFixed(2)} (target ≤ 1.2): ${pgBranchRatio <= 1.2 ? 'met' : 'not met'}.
- Two nodes (4 writers, 2 per node): ${Math.round(twoNodes)}/s, against ${Math.round(writes[1]!.four)}/s from one node.
`,
    );
  } finally {
    for (const side of sides) {
      await side.big.close();
      await side.small.close();
      await side.cleanup();
    }
  }
}

await main();
