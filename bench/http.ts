// REST, Connect and gRPC next to a bare node:http server, in one run, alternating rounds.
// Usage: node --import tsx bench/http.ts   (BENCH_SECONDS, BENCH_ROUNDS, BENCH_CONNECTIONS, BENCH_NODE)
import autocannon from 'autocannon';
import { mkdtemp, rm } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials, Client, Metadata } from '@grpc/grpc-js';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { SearchEventsRequestSchema, SearchEventsResponseSchema } from '../src/gen/tms/v1/event_service_pb.ts';
import { machineLine, percentile, table, writeReport } from './lib/report.ts';
import { startProcess, startTms } from './lib/tms-process.ts';

const seconds = Number(process.env['BENCH_SECONDS'] ?? 5);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 2);
const connections = Number(process.env['BENCH_CONNECTIONS'] ?? 100);
const node = process.env['BENCH_NODE'] ?? process.execPath;
const KEY = 'tms_bench_admin_key_000000000000000';
// The data folder holds synthetic events only (the catalogue loads only into a never-used primary).
const SEARCH = { location: 'Place 7', time_range: '1900-01-01T00:00:00Z/2100-01-01T00:00:00Z', page_size: 10 };
const WRITE_EVENTS = 40_000;

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function cannon(options: autocannon.Options): Promise<Sample> {
  const result = await autocannon({ connections, duration: seconds, ...options });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

/** grpc-js, the client backend services use: `connections` calls in flight at all times. */
async function grpcLoad(port: number): Promise<Sample> {
  const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${KEY}`);
  const request = create(SearchEventsRequestSchema, SEARCH);
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

const scenarios: Record<string, () => Promise<Sample>> = {
  'bare node:http (same JSON body)': () => cannon({ url: `http://127.0.0.1:${bare.port}/`, method: 'GET', body: JSON.stringify(SEARCH) }),
  'REST GET /v1/search-events (JSON body)': () =>
    cannon({ url: `${base}/v1/search-events`, method: 'GET', headers: auth, body: JSON.stringify(SEARCH) }),
  'Connect JSON SearchEvents (HTTP/1.1)': () =>
    cannon({ url: `${base}/tms.v1.EventService/SearchEvents`, method: 'POST', headers: auth, body: JSON.stringify(SEARCH) }),
  'gRPC SearchEvents (grpc-js, h2c)': () => grpcLoad(tms.port),
  'REST POST /v1/manipulate-event on a branch': () =>
    cannon({
      url: `${base}/v1/manipulate-event`,
      method: 'POST',
      headers: auth,
      requests: [
        {
          setupRequest: (request) => ({
            ...request,
            body: JSON.stringify({
              event_id: `syn-${String(nextEvent++ % WRITE_EVENTS).padStart(9, '0')}`,
              new_outcome: { description: 'bench', changes: [{ action: 'observe', time: '2000-01-01T00:00:00Z' }] },
              timeline_id: branch.timeline_id,
            }),
          }),
        },
      ],
    }),
};

const samples = new Map<string, Sample[]>();
for (let round = 1; round <= rounds; round++) {
  for (const [name, run] of Object.entries(scenarios)) {
    const sample = await run();
    console.log(`round ${round} ${name}: ${Math.round(sample.rps)} req/s, p50 ${sample.p50.toFixed(2)} ms, p99 ${sample.p99.toFixed(2)} ms, errors ${sample.errors}`);
    samples.set(name, [...(samples.get(name) ?? []), sample]);
  }
}
await Promise.all([tms.stop(), bare.stop()]);
await rm(dataDir, { recursive: true, force: true });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const bareRps = median(samples.get('bare node:http (same JSON body)')!.map((s) => s.rps));
const rows = [...samples].map(([name, list]) => {
  const rps = median(list.map((s) => s.rps));
  return [
    name,
    Math.round(rps),
    (rps / bareRps).toFixed(2),
    median(list.map((s) => s.p50)).toFixed(2),
    median(list.map((s) => s.p99)).toFixed(2),
    list.reduce((n, s) => n + s.errors, 0),
  ];
});
const report = `## HTTP faces vs bare node:http

${machineLine()}. ${rounds} alternating rounds of ${seconds} s each, ${connections} connections, load generator in the same
machine (it shares the 2 cores). Median of rounds. Search returns ${resultCount} events (one synthetic place, 10-result page);
writes are synced LevelDB batches on an alternate branch of a ${WRITE_EVENTS}-event primary.

${table(['scenario', 'req/s', 'ratio to bare', 'p50 ms', 'p99 ms', 'errors'], rows)}
`;
console.log(report);
writeReport(process.env['BENCH_REPORT_NAME'] ?? 'http', report);
