// How a paradox check's time grows with the anchors pinned on its timeline.
// Usage: node --import ./src/typescript/register.mjs bench/anchors.ts   (BENCH_QUICK=1: a few anchors, figures meaningless)
// One tms process on the seeded catalogue; anchors are set over REST in steps on primary (no event changed) and on a
// branch with one event changed, and after each step paradox checks of the timeline run one at a time; then, as
// under a mixed load, a new anchor before each check.
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

function send(method: string, path: string, body: object): Promise<Record<string, unknown>> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: tms.port, method, path, agent, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const reply = Buffer.concat(chunks).toString();
          if (res.statusCode === 200) resolve(JSON.parse(reply) as Record<string, unknown>);
          else reject(new Error(`${method} ${path}: ${res.statusCode} ${reply}`));
        });
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/** A timeline measured: its anchors are pinned on it, and it is checked. */
interface Measured {
  name: string;
  timelineId: string;
  anchors: number;
  baselineP50: number;
}

/** A branch of primary with one event changed (Constantine's battle, 312), far from the anchors (1000–1999). */
async function changedBranch(): Promise<string> {
  const { timeline_id: timelineId } = await send('POST', '/v1/create-timeline', { base_timeline_id: 'primary', description: 'anchors bench' });
  await send('POST', '/api/v1/manipulate-event', { event_id: 'battle-of-the-milvian-bridge', action: 'bless', time: '0312-10-28T00:00:00Z', timeline_id: timelineId });
  return String(timelineId);
}

/** Anchor number `i`: at an instant spread over the catalogue's centuries, with conditions in their units. */
const setAnchor = (timeline: Measured) => {
  const i = timeline.anchors++;
  return send('POST', '/v1/set-anchor', {
    timestamp: `${1000 + (i % 1000)}-06-01T12:00:00.${String(i).padStart(9, '0')}Z`,
    environment: { temperature: '20°C', humidity: '40%' },
    timeline_id: timeline.timelineId,
  });
};

async function setAnchorsUpTo(timeline: Measured, count: number): Promise<void> {
  await Promise.all(
    Array.from({ length: SETTERS }, async () => {
      while (timeline.anchors < count) await setAnchor(timeline);
    }),
  );
}

const check = async (timeline: Measured): Promise<number> => {
  const started = performance.now();
  await send('GET', '/v1/check-paradox', { timeline_id: timeline.timelineId });
  return performance.now() - started;
};

/** Full collections so far; prom-client shows no series before the first collection of any kind. */
const fullCollections = async () => {
  const { gc, heapMiB } = await scrape(agent, tms.port);
  return gc?.major ?? (heapMiB === undefined ? NaN : 0);
};

const timelines: Measured[] = [
  { name: 'primary (no event changed)', timelineId: 'primary', anchors: 0, baselineP50: NaN },
  { name: 'a branch with one event changed', timelineId: await changedBranch(), anchors: 0, baselineP50: NaN },
];
const rows: (string | number)[][] = [];
for (const step of STEPS) {
  for (const timeline of timelines) {
    await setAnchorsUpTo(timeline, step);
    const latencies: number[] = [];
    const warmUp = step === STEPS[0] ? FIRST_WARM_UP_CHECKS : WARM_UP_CHECKS;
    for (let i = 0; i < warmUp + CHECKS; i++) {
      const took = await check(timeline);
      if (i >= warmUp) latencies.push(took);
    }
    latencies.sort((a, b) => a - b);
    const p50 = percentile(latencies, 50);
    if (step === STEPS[0]) timeline.baselineP50 = p50;
    const collectionsBefore = await fullCollections();
    const afterChange: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      await setAnchor(timeline);
      afterChange.push(await check(timeline));
    }
    const collections = (await fullCollections()) - collectionsBefore;
    afterChange.sort((a, b) => a - b);
    console.log(
      `${timeline.name}, ${step} anchors: check-paradox p50 ${p50.toFixed(2)} ms, p90 ${percentile(latencies, 90).toFixed(2)} ms; after a new anchor p50 ${percentile(afterChange, 50).toFixed(2)} ms, ${collections} full collections in ${CHANGES} rounds`,
    );
    rows.push([
      timeline.name,
      step.toLocaleString('en-US'),
      p50.toFixed(2),
      percentile(latencies, 90).toFixed(2),
      `${(p50 / timeline.baselineP50).toFixed(2)}×`,
      percentile(afterChange, 50).toFixed(2),
      percentile(afterChange, 90).toFixed(2),
      ((collections * 100) / CHANGES).toFixed(1),
    ]);
  }
}
agent.destroy();
await tms.stop();
await rm(dataDir, { recursive: true, force: true });

writeReport(
  'anchors',
  `## Paradox checks against the anchors pinned on the timeline

${machineLine()}${quick ? '. **Quick run (smoke test): the figures mean nothing.**' : ''}. One tms process on the seeded catalogue;
two timelines: primary, none of whose events was changed, and a branch of it with one event changed (in 312, far from
the anchors). On each, anchors set over REST (${SETTERS} at a time) up to each count, then ${CHECKS} paradox checks of the
timeline, one at a time, after ${WARM_UP_CHECKS} not counted (${FIRST_WARM_UP_CHECKS} at the first step, to warm the service up); then ${CHANGES} rounds of one new
anchor and one check, as under a mixed load, with the service's full (mark-compact) collections counted from its
\`/metrics\`. Only a changed event can breach an anchor, so a check of primary counts its anchors, and a check of the
branch weighs every anchor against the change (on the request thread for a timeline this small) with the pins in
instant order, which the store keeps with a timeline's anchors once listed and changes pin by pin (docs/storage.md).

${table(['timeline', 'anchors on it', 'check p50 ms', 'check p90 ms', 'p50 ÷ p50 with none', 'check after a new anchor p50 ms', 'p90 ms', 'full collections per 100 rounds'], rows)}
`,
);
