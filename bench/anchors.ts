// How a paradox check's time grows with the anchors pinned on its timeline: every check weighs every anchor.
// Usage: node --import tsx bench/anchors.ts   (BENCH_QUICK=1: a few anchors, figures meaningless)
// One tms process on the seeded catalogue; anchors are set on primary over REST in steps, and after each step
// paradox checks of primary run one at a time; then, as under a mixed load, a new anchor before each check.
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { machineLine, percentile, table, writeReport } from './lib/report.ts';
import { startTms } from './lib/tms-process.ts';
import { scrape } from './soak/process-samples.ts';

const quick = process.env['BENCH_QUICK'] === '1';
const KEY = 'tms_bench_admin_key_000000000000000';
const STEPS = quick ? [0, 100] : [0, 1_000, 10_000, 30_000];
const CHECKS = quick ? 5 : 60;
const WARM_UP_CHECKS = quick ? 1 : 10;
/** The first step also warms the service's code up: with 10 checks not counted its p90 was seven times its p50. */
const FIRST_WARM_UP_CHECKS = quick ? 1 : 200;
const SETTERS = 8;
/** Rounds of one new anchor then one check, at each step. */
const CHANGES = quick ? 5 : 200;

const dataDir = await mkdtemp(join(tmpdir(), 'tms-bench-anchors-'));
const tms = await startTms(dataDir, KEY);
const agent = new Agent({ keepAlive: true, maxSockets: SETTERS });

function send(method: string, path: string, body: object): Promise<void> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: tms.port, method, path, agent, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${method} ${path}: ${res.statusCode} ${Buffer.concat(chunks).toString()}`))));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/** Anchor number `i` on primary: at an instant spread over the catalogue's centuries, with conditions in their units. */
const setAnchor = (i: number) =>
  send('POST', '/v1/set-anchor', { timestamp: `${1000 + (i % 1000)}-06-01T12:00:00.${String(i).padStart(9, '0')}Z`, environment: { temperature: '20°C', humidity: '40%' } });

async function setAnchorsUpTo(count: number, from: number): Promise<void> {
  let next = from;
  await Promise.all(
    Array.from({ length: SETTERS }, async () => {
      for (let i = next++; i < count; i = next++) await setAnchor(i);
    }),
  );
}

const checkPrimary = async (): Promise<number> => {
  const started = performance.now();
  await send('GET', '/v1/check-paradox', { timeline_id: 'primary' });
  return performance.now() - started;
};

/** Full collections so far; prom-client shows no series before the first collection of any kind. */
const fullCollections = async () => {
  const { gc, heapMiB } = await scrape(agent, tms.port);
  return gc?.major ?? (heapMiB === undefined ? NaN : 0);
};

const rows: (string | number)[][] = [];
let baselineP50 = NaN;
let anchors = 0;
for (const step of STEPS) {
  await setAnchorsUpTo(step, anchors);
  anchors = Math.max(anchors, step);
  const latencies: number[] = [];
  const warmUp = step === STEPS[0] ? FIRST_WARM_UP_CHECKS : WARM_UP_CHECKS;
  for (let i = 0; i < warmUp + CHECKS; i++) {
    const took = await checkPrimary();
    if (i >= warmUp) latencies.push(took);
  }
  latencies.sort((a, b) => a - b);
  const p50 = percentile(latencies, 50);
  if (step === 0) baselineP50 = p50;
  const collectionsBefore = await fullCollections();
  const afterChange: number[] = [];
  for (let i = 0; i < CHANGES; i++) {
    await setAnchor(anchors++);
    afterChange.push(await checkPrimary());
  }
  const collections = (await fullCollections()) - collectionsBefore;
  afterChange.sort((a, b) => a - b);
  console.log(
    `${step} anchors: check-paradox p50 ${p50.toFixed(2)} ms, p90 ${percentile(latencies, 90).toFixed(2)} ms; after a new anchor p50 ${percentile(afterChange, 50).toFixed(2)} ms, ${collections} full collections in ${CHANGES} rounds`,
  );
  rows.push([
    step.toLocaleString('en-US'),
    p50.toFixed(2),
    percentile(latencies, 90).toFixed(2),
    `${(p50 / baselineP50).toFixed(2)}×`,
    percentile(afterChange, 50).toFixed(2),
    percentile(afterChange, 90).toFixed(2),
    ((collections * 100) / CHANGES).toFixed(1),
  ]);
}
agent.destroy();
await tms.stop();
await rm(dataDir, { recursive: true, force: true });

writeReport(
  'anchors',
  `## Paradox checks against the anchors pinned on the timeline

${machineLine()}${quick ? '. **Quick run (smoke test): the figures mean nothing.**' : ''}. One tms process on the seeded catalogue
(primary); anchors set on primary over REST (${SETTERS} at a time) up to each count, then ${CHECKS} paradox checks of
primary, one at a time, after ${WARM_UP_CHECKS} not counted (${FIRST_WARM_UP_CHECKS} at the first step, to warm the service up); then ${CHANGES} rounds of one new anchor and one check, as under a mixed
load, with the service's full (mark-compact) collections counted from its \`/metrics\`. A check weighs every anchor against the timeline's changes (on the
request thread for a timeline this small); the store keeps a timeline's anchors in memory once listed (docs/storage.md),
the API their pins in instant order (src/api/anchor-pins.ts).

${table(['anchors on primary', 'check p50 ms', 'check p90 ms', 'p50 ÷ p50 with none', 'check after a new anchor p50 ms', 'p90 ms', 'full collections per 100 rounds'], rows)}
`,
);
