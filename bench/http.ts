// REST, Connect and gRPC next to bare servers, in one run, alternating rounds; one table per target.
// Usage: node --import ./src/typescript/register.mjs bench/http.ts   (BENCH_SECONDS, BENCH_ROUNDS, BENCH_CONNECTIONS, BENCH_NODE, BENCH_QUICK)
// BENCH_SCENARIOS=gRPC,bare (parts of scenario names) runs only those and prints them, writing no report.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create, toBinary } from '@bufbuild/protobuf';
import { SearchEventsRequestSchema } from '../src/gen/tms/v1/event_service_pb.ts';
import { cannon, distinctTimeRange, grpcLoad, grpcReply, measured, medianSample, pairedRatio, type GrpcCall, type Sample } from './lib/load.ts';
import { machineLine, table, writeReport } from './lib/report.ts';
import { measuredTarget, targetTable, writeTargets, type Target } from './lib/targets.ts';
import { startProcess, startTms } from './lib/tms-process.ts';
import { RUN_TYPESCRIPT } from '../src/typescript/node-options.ts';

/** A smoke run (CI): every scenario once, briefly, on small data; its figures mean nothing. */
const quick = process.env['BENCH_QUICK'] === '1';
const shape = {
  seconds: Number(process.env['BENCH_SECONDS'] ?? (quick ? 1 : 5)),
  connections: Number(process.env['BENCH_CONNECTIONS'] ?? (quick ? 10 : 100)),
};
const rounds = Number(process.env['BENCH_ROUNDS'] ?? (quick ? 1 : 3));
const node = process.env['BENCH_NODE'] ?? process.execPath;
const serverNode = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
const root = join(import.meta.dirname, '..');
const KEY = 'tms_bench_admin_key_000000000000000';
/** The search targets are stated for a 10^3-event timeline; 20 places put about 50 events at each. */
const SEARCH_EVENTS = 1000;
const SEARCH = { location: 'Place 7', time_range: '1900-01-01T00:00:00Z/2100-01-01T00:00:00Z', page_size: 10 };
/** Writes manipulate each event once per round, on a branch of their own timeline: room for 20 000 writes a second. */
const WRITE_EVENTS = quick ? 5000 : 100_000;

async function generated(events: number, places: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tms-bench-http-'));
  execFileSync(node, [...RUN_TYPESCRIPT, 'src/cli/main.ts', 'generate', '--events', String(events), '--places', String(places), '--data-dir', dir], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return dir;
}

/** A different time range on every request, so each one misses the search page cache and reads the store. */
const distinctSearchBody = () => JSON.stringify({ ...SEARCH, time_range: distinctTimeRange() });

console.log(`generating ${SEARCH_EVENTS} events to search and ${WRITE_EVENTS} to write…`);
const searchDir = await generated(SEARCH_EVENTS, 20);
const writeDir = await generated(WRITE_EVENTS, 200);
const searchTms = await startTms(searchDir, KEY, node);
const writeTms = await startTms(writeDir, KEY, node);
const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const searchBase = `http://127.0.0.1:${searchTms.port}`;
const writeBase = `http://127.0.0.1:${writeTms.port}`;

const probe = await fetch(`${searchBase}/v1/search-events?${new URLSearchParams({ ...SEARCH, page_size: '10' })}`, { headers: auth });
const probeText = await probe.text();
const resultCount = (JSON.parse(probeText) as { events: unknown[] }).events.length;
const bare = await startProcess(['bench/bare-server.ts', probeText], {}, /listening on http:\/\/[^:]+:(\d+)/, node);
const grpcSearchMessage = (timeRange: string) =>
  Buffer.from(toBinary(SearchEventsRequestSchema, create(SearchEventsRequestSchema, { location: SEARCH.location, timeRange, pageSize: SEARCH.page_size })));
const grpcSearch: GrpcCall = {
  path: '/tms.v1.EventService/SearchEvents',
  request: grpcSearchMessage(SEARCH.time_range),
  key: KEY,
};
const grpcDistinctSearch: GrpcCall = { ...grpcSearch, request: () => grpcSearchMessage(distinctTimeRange()) };
const cannedReply = await grpcReply(searchTms.port, grpcSearch);
const bareGrpc = await startProcess(['bench/bare-grpc-server.ts', cannedReply.toString('base64')], {}, /listening on grpc:\/\/[^:]+:(\d+)/, node);

const newBranch = async (description: string) =>
  (
    (await (
      await fetch(`${writeBase}/v1/create-timeline`, { method: 'POST', headers: auth, body: JSON.stringify({ base_timeline_id: 'primary', description }) })
    ).json()) as { timeline_id: string }
  ).timeline_id;
// The baseline's body names a branch too, so that it is the same size as ours.
const baselineBranch = await newBranch('write baseline');
let nextEvent = 0;
const manipulation = (timelineId: string, index: number) =>
  JSON.stringify({
    event_id: `syn-${String(index % WRITE_EVENTS).padStart(9, '0')}`,
    new_outcome: { description: 'bench', changes: [{ action: 'observe', time: '2000-01-01T00:00:00Z' }] },
    timeline_id: timelineId,
  });

// The write baseline stores a record the size of the event a manipulation creates, and answers as many bytes.
const writeSample = await (await fetch(`${writeBase}/v1/manipulate-event`, { method: 'POST', headers: auth, body: manipulation(await newBranch('sizing'), 0) })).text();
const recordBytes = Buffer.byteLength(JSON.stringify((JSON.parse(writeSample) as { event: unknown }).event));
const bareWriteDir = await mkdtemp(join(tmpdir(), 'tms-bench-bare-write-'));
const bareWrite = await startProcess(
  ['bench/bare-write-server.ts', bareWriteDir, String(recordBytes), String(Buffer.byteLength(writeSample))],
  {},
  /listening on http:\/\/[^:]+:(\d+)/,
  node,
);

const BARE = 'bare node:http (same request, same JSON answer)';
/**
 * The same bare server, driven as the new-time-range rows drive tms: autocannon builds every request again when it
 * makes its body per request, work that shares the 2 cores with the server under test.
 */
const BARE_DISTINCT = 'bare node:http, a new time range each request (same client as tms)';
const BARE_GRPC = 'bare grpc-js, canned reply of the same size';
const BARE_WRITE = 'bare node:http, one synced LevelDB put per request';
const REPEATED = 'REST search, the same query repeated';
const DISTINCT = 'REST search, a new time range each request';
const CONNECT = 'Connect JSON SearchEvents (HTTP/1.1)';
const CONNECT_DISTINCT = 'Connect JSON SearchEvents, a new time range each request';
const GRPC = 'gRPC SearchEvents (grpc-js, h2c)';
const GRPC_DISTINCT = 'gRPC SearchEvents, a new time range each call';
const WRITE = 'REST manipulate-event on a branch';
let bareWrites = 0;
const run = shape.seconds;
const scenarios: Record<string, () => Promise<Sample>> = {
  [BARE]: () => measured(bare, run, () => cannon(shape, { url: `http://127.0.0.1:${bare.port}/`, method: 'GET', headers: auth, body: JSON.stringify(SEARCH) })),
  [BARE_DISTINCT]: () =>
    measured(bare, run, () =>
      cannon(shape, { url: `http://127.0.0.1:${bare.port}/`, method: 'GET', headers: auth, requests: [{ setupRequest: (request) => ({ ...request, body: distinctSearchBody() }) }] }),
    ),
  [REPEATED]: () => measured(searchTms, run, () => cannon(shape, { url: `${searchBase}/v1/search-events`, method: 'GET', headers: auth, body: JSON.stringify(SEARCH) })),
  [DISTINCT]: () =>
    measured(searchTms, run, () =>
      cannon(shape, { url: `${searchBase}/v1/search-events`, method: 'GET', headers: auth, requests: [{ setupRequest: (request) => ({ ...request, body: distinctSearchBody() }) }] }),
    ),
  [CONNECT]: () =>
    measured(searchTms, run, () => cannon(shape, { url: `${searchBase}/tms.v1.EventService/SearchEvents`, method: 'POST', headers: auth, body: JSON.stringify(SEARCH) })),
  [CONNECT_DISTINCT]: () =>
    measured(searchTms, run, () =>
      cannon(shape, {
        url: `${searchBase}/tms.v1.EventService/SearchEvents`,
        method: 'POST',
        headers: auth,
        requests: [{ setupRequest: (request) => ({ ...request, body: distinctSearchBody() }) }],
      }),
    ),
  [BARE_GRPC]: () => measured(bareGrpc, run, () => grpcLoad(shape, bareGrpc.port, grpcSearch)),
  [GRPC]: () => measured(searchTms, run, () => grpcLoad(shape, searchTms.port, grpcSearch)),
  [GRPC_DISTINCT]: () => measured(searchTms, run, () => grpcLoad(shape, searchTms.port, grpcDistinctSearch)),
  [BARE_WRITE]: () =>
    measured(bareWrite, run, () =>
      cannon(shape, {
        url: `http://127.0.0.1:${bareWrite.port}/`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        requests: [{ setupRequest: (request) => ({ ...request, body: manipulation(baselineBranch, bareWrites++) }) }],
      }),
    ),
  // Each round on a new branch: an event manipulated in an earlier round is superseded there, and refused again.
  [WRITE]: async () => {
    const roundBranch = await newBranch('bench writes');
    nextEvent = 0;
    return measured(writeTms, run, () =>
      cannon(shape, { url: `${writeBase}/v1/manipulate-event`, method: 'POST', headers: auth, requests: [{ setupRequest: (request) => ({ ...request, body: manipulation(roundBranch, nextEvent++) }) }] }),
    );
  },
};

const only = process.env['BENCH_SCENARIOS']?.split(',').filter(Boolean);
if (only) for (const name of Object.keys(scenarios)) if (!only.some((part) => name.includes(part))) delete scenarios[name];

// Round 0 warms the JIT of every server and is not recorded (a quick run records it: it has no other).
const samples = new Map<string, Sample[]>();
for (let round = quick ? 1 : 0; round <= rounds; round++) {
  for (const [name, scenario] of Object.entries(scenarios)) {
    const sample = await scenario();
    const cpu = sample.cpuMicros === undefined ? '' : `, server CPU ${Math.round(sample.cpuMicros)} µs/req`;
    console.log(`round ${round} ${name}: ${Math.round(sample.rps)} req/s, p50 ${sample.p50.toFixed(2)} ms, p99 ${sample.p99.toFixed(2)} ms${cpu}, errors ${sample.errors}`);
    if (round > 0) samples.set(name, [...(samples.get(name) ?? []), sample]);
  }
}
await Promise.all([searchTms.stop(), writeTms.stop(), bare.stop(), bareGrpc.stop(), bareWrite.stop()]);
await Promise.all([searchDir, writeDir, bareWriteDir].map((dir) => rm(dir, { recursive: true, force: true })));

const medianOf = (name: string): Sample => medianSample(samples.get(name)!);
if (only) process.exit(0);

const targets: [Target, string, string][] = [
  [{ path: `${DISTINCT}, 10^3-event timeline`, goal: '≥ 0.3× bare node:http (same client), p99 ≤ 10 ms', minRatio: 0.3, maxP99Ms: 10 }, DISTINCT, BARE_DISTINCT],
  [{ path: REPEATED, goal: '≥ 0.6× bare node:http', minRatio: 0.6 }, REPEATED, BARE],
  [{ path: CONNECT, goal: '≥ 0.3× bare node:http', minRatio: 0.3 }, CONNECT, BARE],
  [{ path: GRPC, goal: '≥ 0.7× bare grpc-js (canned reply, same client)', minRatio: 0.7 }, GRPC, BARE_GRPC],
  [{ path: WRITE, goal: '≥ 1.0× bare node:http with one synced LevelDB put, p99 ≤ 20 ms', minRatio: 1, maxP99Ms: 20 }, WRITE, BARE_WRITE],
];
const results = targets.map(([target, row, baseline]) => measuredTarget(target, serverNode, samples.get(row)!, samples.get(baseline)!));
const errors = [...samples.keys()].reduce((n, name) => n + medianOf(name).errors, 0);
const rows = [...samples.keys()].map((name) => {
  const s = medianOf(name);
  return [name, Math.round(s.rps), s.p50.toFixed(2), s.p99.toFixed(2), Math.round(s.cpuMicros ?? NaN), s.errors];
});

const report = `## HTTP faces vs bare servers (Node ${serverNode})

${machineLine()}; every server (tms and the bare ones) runs on **Node ${serverNode}**. ${rounds} alternating rounds of ${shape.seconds} s
each, ${shape.connections} connections (gRPC: as many calls in flight over one grpc-js channel), load generator on the same
machine (it shares the 2 cores), median of rounds; a target's ratio is the median of its rounds' own ratios${quick ? '. **Quick run (smoke test): the figures mean nothing.**' : '.'}

- Searches go to a ${SEARCH_EVENTS}-event timeline (${resultCount} results, one of 20 places, a 10-result page). Repeated
  identical searches are served from the store's page cache (exact: keyed by the read chain's version); the
  "new time range" rows miss it on every request and read the store.
- Writes are synced batches on an alternate branch of a ${WRITE_EVENTS}-event primary (a new branch each round), each
  manipulating a different event (a ${recordBytes}-byte record); the baseline does one synced classic-level put of a
  record that size per request.
- The new-time-range row is compared with the bare server driven the same way, its body made per request: autocannon
  then builds every request again, on the cores the servers use. Driven so, the bare server answered
  ${pairedRatio(samples.get(BARE_DISTINCT)!, samples.get(BARE)!).toFixed(2)}× the requests it answered with one fixed body; against that fixed-body
  baseline the row measured ${pairedRatio(samples.get(DISTINCT)!, samples.get(BARE)!).toFixed(2)}×.
- Server CPU per request is the server process's CPU time over the requests it served, counted until its request log
  stopped growing after the run (work deferred past the run is charged to it).

${targetTable(results)}

All scenarios (errors: ${errors}):

${table(['scenario', 'req/s', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'errors'], rows)}
`;
console.log(report);
const name = process.env['BENCH_REPORT_NAME'] ?? 'http';
writeReport(name, report);
writeTargets(name, results);
if (errors > 0) {
  console.error(`${errors} requests failed`);
  process.exitCode = 1;
}
