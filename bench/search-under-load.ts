/**
 * Search latency while paradox checks of a 10^6-event timeline run back to back, next to search latency
 * without them. The checks' CPU work belongs on the worker pool; this shows what reaches the request thread.
 *
 *   node --import tsx bench/search-under-load.ts
 *
 * Env: BENCH_EVENTS (10^6), BENCH_ROUNDS (3), BENCH_SECONDS per phase (10), BENCH_CLIENTS (4 concurrent
 * searches), BENCH_DATA_DIR (reuse a folder already filled by `tms generate`; it is left in place),
 * BENCH_NODE (another node binary for the server). Writes bench/reports/search-under-load.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { machineLine, percentile, table, writeReport } from './lib/report.ts';
import { startTms } from './lib/tms-process.ts';

const events = Number(process.env['BENCH_EVENTS'] ?? 1_000_000);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
const phaseSeconds = Number(process.env['BENCH_SECONDS'] ?? 10);
const clients = Number(process.env['BENCH_CLIENTS'] ?? 4);
const reusedDir = process.env['BENCH_DATA_DIR'];
const node = process.env['BENCH_NODE'] ?? process.execPath;
const KEY = 'tms_bench_admin_key_000000000000000';
const PLACES = 1000;
/** One synthetic place (about 1000 of the 10^6 events), a 10-result page. */
const SEARCH = JSON.stringify({ location: 'Place 7, Region 0', time_range: '1950-01-01T00:00:00Z/2025-01-01T00:00:00Z', page_size: 10 });
const CHECK = JSON.stringify({ timeline_id: 'primary' });

interface Reply {
  status: number;
  body: string;
  ms: number;
}

/** node:http, because fetch refuses a body on GET; each caller passes its own keep-alive agent. */
function send(port: number, agent: Agent, method: string, path: string, body: string): Promise<Reply> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface SearchSample {
  latencies: number[];
  errors: number;
}

/** `clients` searches in flight at all times for `seconds`. */
async function searchFor(port: number, agent: Agent, seconds: number): Promise<SearchSample> {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const reply = await send(port, agent, 'GET', '/v1/search-events', SEARCH);
        if (reply.status === 200) latencies.push(reply.ms);
        else errors++;
      }
    }),
  );
  return { latencies, errors };
}

interface CheckRun {
  /** Round-trip times of the checks that completed, ms. */
  roundTrips: number[];
  /** The server's own `figures.duration_ms` for the same checks. */
  serverMs: number[];
  errors: number;
  last?: { status: string; timeline_stability: string; figures: { events_analysed: number; links_analysed: number } };
}

/** Paradox checks of primary back to back on their own connection until `stop()`; resolves when the last one ends. */
function checksBackToBack(port: number): { stop: () => Promise<CheckRun> } {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const run: CheckRun = { roundTrips: [], serverMs: [], errors: 0 };
  let stopping = false;
  const loop = (async () => {
    while (!stopping) {
      const reply = await send(port, agent, 'GET', '/v1/check-paradox', CHECK);
      if (reply.status !== 200) {
        run.errors++;
        continue;
      }
      const result = JSON.parse(reply.body) as NonNullable<CheckRun['last']> & { figures: { duration_ms: number } };
      run.roundTrips.push(reply.ms);
      run.serverMs.push(result.figures.duration_ms);
      run.last = result;
    }
  })();
  return {
    stop: async () => {
      stopping = true;
      await loop;
      agent.destroy();
      return run;
    },
  };
}

interface LoopDelay {
  p99: number;
  max: number;
}

/**
 * The server's event-loop delay since the previous scrape, ms: prom-client's default metrics reset their
 * histogram on every collection, so scraping at both ends of a phase brackets that phase.
 */
async function loopDelay(port: number): Promise<LoopDelay> {
  const reply = await send(port, new Agent(), 'GET', '/metrics', '');
  const read = (name: string): number => {
    const match = new RegExp(`^tms_nodejs_eventloop_lag_${name}_seconds ([0-9.e+-]+)$`, 'm').exec(reply.body);
    if (!match) throw new Error(`/metrics has no tms_nodejs_eventloop_lag_${name}_seconds`);
    return Number(match[1]) * 1000;
  };
  return { p99: read('p99'), max: read('max') };
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => percentile(sorted(xs), 50);
const ms = (x: number) => x.toFixed(2);

// ------------------------------------------------------------------ setup

const dataDir = reusedDir ?? (await mkdtemp(join(tmpdir(), 'tms-bench-search-load-')));
if (!reusedDir) {
  console.log(`generating ${events} synthetic events (about a minute per million)…`);
  const out = execFileSync(
    node,
    ['--import', 'tsx', 'src/cli/main.ts', 'generate', '--events', String(events), '--places', String(PLACES), '--data-dir', dataDir, '--no-progress'],
    { cwd: join(import.meta.dirname, '..'), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  console.log(out.toString().trim());
}
const loadBefore = loadavg().map((x) => x.toFixed(2)).join(' ');
const tms = await startTms(dataDir, KEY, node);
const searchAgent = new Agent({ keepAlive: true, maxSockets: clients });

const probe = await send(tms.port, searchAgent, 'GET', '/v1/search-events', SEARCH);
if (probe.status !== 200) throw new Error(`search probe failed: ${probe.status} ${probe.body}`);
const resultCount = (JSON.parse(probe.body) as { events: unknown[] }).events.length;
const coldStarted = performance.now();
const cold = await send(tms.port, new Agent(), 'GET', '/v1/check-paradox', CHECK);
if (cold.status !== 200) throw new Error(`paradox check failed: ${cold.status} ${cold.body}`);
const coldMs = performance.now() - coldStarted;
console.log(`search returns ${resultCount} events; first (cold) paradox check of primary took ${ms(coldMs)} ms`);
await searchFor(tms.port, searchAgent, 2); // warm-up

// ------------------------------------------------------------------ alternating rounds

const idle: SearchSample[] = [];
const loaded: SearchSample[] = [];
const checkRuns: CheckRun[] = [];
const idleDelay: LoopDelay[] = [];
const loadedDelay: LoopDelay[] = [];
for (let round = 1; round <= rounds; round++) {
  await loopDelay(tms.port);
  const quiet = await searchFor(tms.port, searchAgent, phaseSeconds);
  idleDelay.push(await loopDelay(tms.port));
  idle.push(quiet);
  const checks = checksBackToBack(tms.port);
  const busy = await searchFor(tms.port, searchAgent, phaseSeconds);
  const run = await checks.stop();
  loadedDelay.push(await loopDelay(tms.port));
  loaded.push(busy);
  checkRuns.push(run);
  const line = (name: string, s: SearchSample) => {
    const l = sorted(s.latencies);
    return `${name}: ${l.length} searches, p50 ${ms(percentile(l, 50))} ms, p99 ${ms(percentile(l, 99))} ms, errors ${s.errors}`;
  };
  const delay = (d: LoopDelay) => `server loop delay p99 ${ms(d.p99)} ms, max ${ms(d.max)} ms`;
  console.log(`round ${round} ${line('idle', quiet)}; ${delay(idleDelay.at(-1)!)}`);
  console.log(
    `round ${round} ${line('under load', busy)}; ${delay(loadedDelay.at(-1)!)}; ${run.roundTrips.length} checks, median ${ms(median(run.roundTrips))} ms, errors ${run.errors}`,
  );
}
searchAgent.destroy();
await tms.stop();
if (!reusedDir) await rm(dataDir, { recursive: true, force: true });

// ------------------------------------------------------------------ report

const all = (samples: SearchSample[]) => sorted(samples.flatMap((s) => s.latencies));
const idleAll = all(idle);
const loadedAll = all(loaded);
const errorsOf = (samples: SearchSample[]) => samples.reduce((n, s) => n + s.errors, 0);
const roundTrips = checkRuns.flatMap((r) => r.roundTrips);
const serverMs = checkRuns.flatMap((r) => r.serverMs);
const checkErrors = checkRuns.reduce((n, r) => n + r.errors, 0);
const last = checkRuns.findLast((r) => r.last)?.last;
const ratio = (p: number) => (percentile(loadedAll, p) / percentile(idleAll, p)).toFixed(2);

const phaseRow = (name: string, latencies: number[], samples: SearchSample[], delays: LoopDelay[]) => [
  name,
  latencies.length,
  Math.round(latencies.length / (rounds * phaseSeconds)),
  ms(percentile(latencies, 50)),
  ms(percentile(latencies, 90)),
  ms(percentile(latencies, 99)),
  ms(latencies.at(-1)!),
  errorsOf(samples),
  ms(median(delays.map((d) => d.p99))),
  ms(Math.max(...delays.map((d) => d.max))),
];
const summary = table(
  ['phase', 'searches', 'searches/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'errors', 'server loop delay p99 ms', 'loop delay max ms'],
  [
    phaseRow('idle', idleAll, idle, idleDelay),
    phaseRow('paradox checks back to back', loadedAll, loaded, loadedDelay),
    [
      'ratio (under load / idle)',
      '',
      (loadedAll.length / idleAll.length).toFixed(2),
      ratio(50),
      ratio(90),
      ratio(99),
      '',
      '',
      '',
      '',
    ],
  ],
);
const perRound = table(
  ['round', 'idle p50', 'idle p99', 'loaded p50', 'loaded p99', 'loaded loop delay max', 'checks completed', 'check median ms'],
  idle.map((quiet, k) => {
    const a = sorted(quiet.latencies);
    const b = sorted(loaded[k]!.latencies);
    const run = checkRuns[k]!;
    return [
      k + 1,
      ms(percentile(a, 50)),
      ms(percentile(a, 99)),
      ms(percentile(b, 50)),
      ms(percentile(b, 99)),
      ms(loadedDelay[k]!.max),
      run.roundTrips.length,
      ms(median(run.roundTrips)),
    ];
  }),
);

const report = `## Search latency during paradox checks of a 10^6-event timeline (bench/search-under-load.ts)

${machineLine()}. Load average before the run: ${loadBefore} (the machine is shared).
tms runs as its own process over a store of ${events.toLocaleString('en-US')} synthetic events (\`tms generate\`, ${PLACES} places);
the load generator shares the machine. ${clients} clients search back to back over keep-alive connections:
\`GET /v1/search-events\` with a JSON body, one synthetic place, ${resultCount}-event page. ${rounds} alternating rounds of
${phaseSeconds} s idle, then ${phaseSeconds} s while one more client runs \`check-paradox\` on primary back to back.

${summary}

Server loop delay is the tms process's own event-loop delay over each phase (prom-client's sampler, read from
\`/metrics\`; its 10 ms resolution is the idle floor): the max is the longest stretch in which the request thread
could serve no one. Searches/s is the closed-loop throughput of the ${clients} clients.

Paradox checks during the loaded phases: ${roundTrips.length} completed (${checkErrors} errors), round trip median
${ms(median(roundTrips))} ms (min ${ms(Math.min(...roundTrips))}, max ${ms(Math.max(...roundTrips))}); server-side \`duration_ms\` median
${ms(median(serverMs))} ms. Each analysed ${last?.figures.events_analysed.toLocaleString('en-US')} events and
${last?.figures.links_analysed.toLocaleString('en-US')} links: "${last?.status}", ${last?.timeline_stability}. The first, cold check
(genesis snapshot read from LevelDB) took ${ms(coldMs)} ms.

Per round:

${perRound}
`;
console.log(report);
writeReport('search-under-load', report);
