// REST, Connect and gRPC next to a bare node:http server, in one run, alternating rounds.
// Usage: node --import tsx bench/http.ts   (BENCH_SECONDS, BENCH_ROUNDS, BENCH_CONNECTIONS, BENCH_NODE)
import autocannon from 'autocannon';
import { mkdtemp, rm } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials, Client, Metadata } from '@grpc/grpc-js';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { SearchEventsRequestSchema, SearchEventsResponseSchema } from '../src/gen/tms/v1/event_service_pb.ts';
import { machineLine, percentile, table, writeReport } from './lib/report.ts';
import { startProcess, startTms, type ServerProcess } from './lib/tms-process.ts';

const seconds = Number(process.env['BENCH_SECONDS'] ?? 5);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 2);
const connections = Number(process.env['BENCH_CONNECTIONS'] ?? 100);
const node = process.env['BENCH_NODE'] ?? process.execPath;
const serverNodeVersion = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
const KEY = 'tms_bench_admin_key_000000000000000';
// The data folder holds synthetic events only (the catalogue loads only into a never-used primary).
const SEARCH = { location: 'Place 7', time_range: '1900-01-01T00:00:00Z/2100-01-01T00:00:00Z', page_size: 10 };
const WRITE_EVENTS = 40_000;

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU time (all threads) the server process spent per request: steadier than req/s on a shared machine. */
  cpuMicros?: number;
}

async function cannon(options: autocannon.Options): Promise<Sample> {
  const result = await autocannon({ connections, duration: seconds, ...options });
  return { rps: result.requests.total / seconds, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

/** utime + stime of a process in milliseconds, from /proc (Linux); undefined elsewhere. */
function cpuMillis(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/** Size of a file in bytes; it grows while a server is still writing its request log. */
function fileSize(path: string): number {
  return statSync(path).size;
}

/** Resolves once `path` has not grown for 300 ms: a server's deferred work (its log) is done. */
async function settled(path: string): Promise<void> {
  let size = fileSize(path);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const now = fileSize(path);
    if (now === size) return;
    size = now;
  }
}

/**
 * Runs the load and charges the server the CPU it spent until its log settled afterwards, so work a server
 * defers past the run (a request log that fell behind) is counted, not hidden.
 */
async function measured(server: ServerProcess, run: () => Promise<Sample>): Promise<Sample> {
  const before = cpuMillis(server.child.pid);
  const sample = await run();
  await settled(server.logFile);
  const after = cpuMillis(server.child.pid);
  if (before !== undefined && after !== undefined) sample.cpuMicros = ((after - before) * 1000) / (sample.rps * seconds);
  return sample;
}

/** A different time range on every request, so each one misses the search page cache and reads LevelDB. */
function distinctSearchBody(): string {
  const year = 1900 + Math.floor(Math.random() * 190);
  const day = String(1 + Math.floor(Math.random() * 28)).padStart(2, '0');
  const minute = String(Math.floor(Math.random() * 60)).padStart(2, '0');
  return JSON.stringify({ ...SEARCH, time_range: `${year}-01-${day}T00:${minute}:00Z/2100-01-01T00:00:00Z` });
}

/** grpc-js, the client backend services use: `connections` calls in flight at all times. */
async function grpcLoad(port: number): Promise<Sample> {
  const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${KEY}`);
  const request = create(SearchEventsRequestSchema, { location: SEARCH.location, timeRange: SEARCH.time_range, pageSize: SEARCH.page_size });
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  const one = () =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      client.makeUnaryRequest(
        '/tms.v1.EventService/SearchEvents',
        (m: typeof request) => Buffer.from(toBinary(SearchEventsRequestSchema, m)),
        (b: Buffer) => fromBinary(SearchEventsResponseSchema, b),
        request,
        metadata,
        (error) => {
          if (error) errors++;
          latencies.push(performance.now() - started);
          resolve();
        },
      );
    });
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) await one();
    }),
  );
  client.close();
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors };
}

const dataDir = await mkdtemp(join(tmpdir(), 'tms-bench-http-'));
console.log(`generating ${WRITE_EVENTS} synthetic events for the write benchmark…`);
execFileSync(node, ['--import', 'tsx', 'src/cli/main.ts', 'generate', '--events', String(WRITE_EVENTS), '--places', '200', '--data-dir', dataDir], {
  cwd: join(import.meta.dirname, '..'),
  stdio: ['ignore', 'ignore', 'inherit'],
});
const tms = await startTms(dataDir, KEY, node);
const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const base = `http://127.0.0.1:${tms.port}`;

const probe = await fetch(`${base}/v1/search-events?${new URLSearchParams({ ...SEARCH, page_size: '10' })}`, { headers: auth });
const probeText = await probe.text();
const resultCount = (JSON.parse(probeText) as { events: unknown[] }).events.length;
const bare = await startProcess(['bench/bare-server.ts', probeText], {}, /listening on http:\/\/[^:]+:(\d+)/, node);

const branch = (await (
  await fetch(`${base}/v1/create-timeline`, { method: 'POST', headers: auth, body: JSON.stringify({ base_timeline_id: 'primary', description: 'bench writes' }) })
).json()) as { timeline_id: string };
let nextEvent = 0;
const manipulation = (timelineId: string, index: number) =>
  JSON.stringify({
    event_id: `syn-${String(index % WRITE_EVENTS).padStart(9, '0')}`,
    new_outcome: { description: 'bench', changes: [{ action: 'observe', time: '2000-01-01T00:00:00Z' }] },
    timeline_id: timelineId,
  });

// The write baseline stores a record the size of the event a manipulation creates, and answers as many bytes.
const sizing = (await (
  await fetch(`${base}/v1/create-timeline`, { method: 'POST', headers: auth, body: JSON.stringify({ base_timeline_id: 'primary', description: 'sizing' }) })
).json()) as { timeline_id: string };
const sample = await (await fetch(`${base}/v1/manipulate-event`, { method: 'POST', headers: auth, body: manipulation(sizing.timeline_id, 0) })).text();
const recordBytes = Buffer.byteLength(JSON.stringify((JSON.parse(sample) as { event: unknown }).event));
const bareWriteDir = await mkdtemp(join(tmpdir(), 'tms-bench-bare-write-'));
const bareWrite = await startProcess(
  ['bench/bare-write-server.ts', bareWriteDir, String(recordBytes), String(Buffer.byteLength(sample))],
  {},
  /listening on http:\/\/[^:]+:(\d+)/,
  node,
);

const BARE = 'bare node:http (same JSON body)';
const SEARCH_ROW = 'REST GET /v1/search-events (JSON body)';
const BARE_WRITE = 'bare node:http, one synced LevelDB put per request';
const WRITE_ROW = 'REST POST /v1/manipulate-event on a branch';
let bareWrites = 0;
const scenarios: Record<string, () => Promise<Sample>> = {
  [BARE]: () => measured(bare, () => cannon({ url: `http://127.0.0.1:${bare.port}/`, method: 'GET', body: JSON.stringify(SEARCH) })),
  [SEARCH_ROW]: () =>
    measured(tms, () => cannon({ url: `${base}/v1/search-events`, method: 'GET', headers: auth, body: JSON.stringify(SEARCH) })),
  'REST search, a new time range each request (cache misses)': () =>
    measured(tms, () =>
      cannon({
        url: `${base}/v1/search-events`,
        method: 'GET',
        headers: auth,
        requests: [{ setupRequest: (request) => ({ ...request, body: distinctSearchBody() }) }],
      }),
    ),
  'Connect JSON SearchEvents (HTTP/1.1)': () =>
    measured(tms, () => cannon({ url: `${base}/tms.v1.EventService/SearchEvents`, method: 'POST', headers: auth, body: JSON.stringify(SEARCH) })),
  'gRPC SearchEvents (grpc-js, h2c)': () => measured(tms, () => grpcLoad(tms.port)),
  [BARE_WRITE]: () =>
    measured(bareWrite, () =>
      cannon({
        url: `http://127.0.0.1:${bareWrite.port}/`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        requests: [{ setupRequest: (request) => ({ ...request, body: manipulation(branch.timeline_id, bareWrites++) }) }],
      }),
    ),
  [WRITE_ROW]: () =>
    measured(tms, () =>
      cannon({
        url: `${base}/v1/manipulate-event`,
        method: 'POST',
        headers: auth,
        requests: [{ setupRequest: (request) => ({ ...request, body: manipulation(branch.timeline_id, nextEvent++) }) }],
      }),
    ),
};

// Round 0 warms the JIT of both servers and is not recorded.
const samples = new Map<string, Sample[]>();
for (let round = 0; round <= rounds; round++) {
  for (const [name, run] of Object.entries(scenarios)) {
    const sample = await run();
    const cpu = sample.cpuMicros === undefined ? '' : `, server CPU ${Math.round(sample.cpuMicros)} µs/req`;
    console.log(`round ${round} ${name}: ${Math.round(sample.rps)} req/s, p50 ${sample.p50.toFixed(2)} ms, p99 ${sample.p99.toFixed(2)} ms${cpu}, errors ${sample.errors}`);
    if (round === 0) continue;
    samples.set(name, [...(samples.get(name) ?? []), sample]);
  }
}
await Promise.all([tms.stop(), bare.stop(), bareWrite.stop()]);
await rm(dataDir, { recursive: true, force: true });
await rm(bareWriteDir, { recursive: true, force: true });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const bareRps = median(samples.get(BARE)!.map((s) => s.rps));
const bareCpu = median(samples.get(BARE)!.map((s) => s.cpuMicros ?? NaN));
const rows = [...samples].map(([name, list]) => {
  const rps = median(list.map((s) => s.rps));
  return [
    name,
    Math.round(rps),
    (rps / bareRps).toFixed(2),
    median(list.map((s) => s.p50)).toFixed(2),
    median(list.map((s) => s.p99)).toFixed(2),
    Math.round(median(list.map((s) => s.cpuMicros ?? NaN))),
    (bareCpu / median(list.map((s) => s.cpuMicros ?? NaN))).toFixed(2),
    list.reduce((n, s) => n + s.errors, 0),
  ];
});
const searchRatio = median(samples.get(SEARCH_ROW)!.map((s) => s.rps)) / bareRps;
const searchCpuRatio = bareCpu / median(samples.get(SEARCH_ROW)!.map((s) => s.cpuMicros ?? NaN));
// Throughput ratios swing with whatever else the shared machine runs; CPU per request is steadier. Both must pass.
const met = searchRatio >= 0.3 && searchCpuRatio >= 0.3;
const writeRatio = median(samples.get(WRITE_ROW)!.map((s) => s.rps)) / median(samples.get(BARE_WRITE)!.map((s) => s.rps));
const writeP99 = median(samples.get(WRITE_ROW)!.map((s) => s.p99));
const verdict = `REST search-events: **${searchRatio.toFixed(2)}× the bare server's req/s, ${searchCpuRatio.toFixed(2)}× its CPU efficiency** (target ≥ 0.3× on both, goal 0.6×): ${met ? 'target met' : '**target not met**'}.

REST manipulate-event: **${writeRatio.toFixed(2)}× the req/s of a bare node:http server doing one synced LevelDB put of a ${recordBytes}-byte record per request**, p99 ${writeP99.toFixed(1)} ms (target ≥ 1.0×, p99 ≤ 20 ms): ${writeRatio >= 1 && writeP99 <= 20 ? 'met' : '**not met**'}. tms answers each write after the synced batch that holds it; concurrent writes share one batch (group commit).`;
const report = `## HTTP faces vs bare node:http

${machineLine()}; both servers (tms and bare) run on **Node ${serverNodeVersion}**. ${rounds} alternating rounds of ${seconds} s each, ${connections} connections, load generator in the same
machine (it shares the 2 cores). Median of rounds. Search returns ${resultCount} events (one synthetic place, 10-result page);
writes are synced LevelDB batches on an alternate branch of a ${WRITE_EVENTS}-event primary. Repeated identical searches are
served from the store's search page cache (exact: keyed by the read chain's version); the "new time range" row misses it
on every request and reads LevelDB. Server CPU per request is the tms (or bare) process's CPU time over the requests it
served, counted until its request log has stopped growing after the run (work deferred past the run is charged to
it): the load generator shares the machine, so req/s ratios also reflect how much CPU autocannon left over.

${verdict}

${table(['scenario', 'req/s', 'ratio to bare', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'CPU ratio (bare/this)', 'errors'], rows)}
`;
console.log(report);
writeReport(process.env['BENCH_REPORT_NAME'] ?? 'http', report);
