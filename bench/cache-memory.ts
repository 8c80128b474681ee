// What the search page cache really holds next to what it counts against its budget, through the real faces.
// Usage: node --import ./src/typescript/register.mjs bench/cache-memory.ts   (BENCH_QUICK=1: a few pages, figures meaningless)
// Each case runs in a process of its own: a tms app in it, searches over REST or Connect, each page asked for twice
// (the second answer keeps its encoded reply with the page), the heap measured after full garbage collections.
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/observability/logger.ts';
import { machineLine, table, writeReport } from './lib/report.ts';
import { writeTargets, type TargetResult } from './lib/targets.ts';
import { RUN_TYPESCRIPT } from '../src/typescript/node-options.ts';

const quick = process.env['BENCH_QUICK'] === '1';
const KEY = 'tms_bench_admin_key_000000000000000';
const CASES = {
  'REST, 10-event pages': { face: 'rest', empty: false },
  'REST, pages that found nothing': { face: 'rest', empty: true },
  'Connect JSON, 10-event pages': { face: 'connect', empty: false },
  'Connect JSON, pages that found nothing': { face: 'connect', empty: true },
} as const;
type CaseName = keyof typeof CASES;

interface Measured {
  entries: number;
  countedBytes: number;
  heapBytes: number;
  externalBytes: number;
}

/** A time range of its own for each page: a year and minute from `i`, to 2100 (ten events) or to the next day (none). */
function timeRange(i: number, empty: boolean): string {
  const year = 1000 + (i % 900);
  const at = `${year}-01-01T${String(Math.floor(i / 3600) % 24).padStart(2, '0')}:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z`;
  return `${at}/${empty ? `${year}-01-02T00:00:00Z` : '2100-01-01T00:00:00Z'}`;
}

function post(port: number, path: string, method: string, body: object): Promise<string> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString()) : reject(new Error(`${path}: ${res.statusCode} ${Buffer.concat(chunks).toString()}`))));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

async function measureCase(name: CaseName, pages: number): Promise<Measured> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const dataDir = await mkdtemp(join(tmpdir(), 'tms-bench-cache-'));
  const config = loadConfig({ port: 0, adminKey: KEY, logLevel: 'silent', rateLimit: 0, dataDir }, {});
  const app = await startApp(config, createLogger(config.logLevel));
  const { face, empty } = CASES[name];
  const search = (i: number) =>
    face === 'rest'
      ? post(app.port, '/v1/search-events', 'GET', { time_range: timeRange(i, empty), page_size: 10 })
      : post(app.port, '/tms.v1.EventService/SearchEvents', 'POST', { timeline_id: 'primary', time_range: timeRange(i, empty), page_size: 10 });
  const cache = async () => {
    const metrics = await new Promise<string>((resolve, reject) =>
      request({ host: '127.0.0.1', port: app.port, path: '/metrics' }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(Buffer.concat(chunks).toString()));
      })
        .on('error', reject)
        .end(),
    );
    const figure = (metric: string) => Number(new RegExp(`^${metric}\\{cache="search_page"\\} (\\S+)$`, 'm').exec(metrics)?.[1]);
    return { entries: figure('tms_cache_entries'), bytes: figure('tms_cache_bytes') };
  };
  const memory = () => {
    for (let i = 0; i < 3; i++) gc();
    const usage = process.memoryUsage();
    return { heap: usage.heapUsed, external: usage.external };
  };
  // Warm-up on ranges of their own, so that code, the version cache and the indexes are in place before the count.
  const offset = 1_000_000;
  for (let i = 0; i < 200; i++) await search(offset + i);
  const warm = await cache();
  const before = memory();
  for (let i = 0; i < pages; i++) {
    await search(i);
    await search(i);
  }
  const after = memory();
  const filled = await cache();
  await app.close();
  await rm(dataDir, { recursive: true, force: true });
  return {
    entries: filled.entries - warm.entries,
    countedBytes: filled.bytes - warm.bytes,
    heapBytes: after.heap - before.heap,
    externalBytes: after.external - before.external,
  };
}

if (process.argv[2] === '--case') {
  const result = await measureCase(process.argv[3] as CaseName, Number(process.argv[4]));
  console.log(JSON.stringify(result));
  process.exit(0);
}

// Fewer pages than fill the 32 MiB budget: while it is not full, what is held and what is counted grow together.
const pages = quick ? 100 : 2000;
const rows: (string | number)[][] = [];
const targets: TargetResult[] = [];
for (const name of Object.keys(CASES) as CaseName[]) {
  const output = execFileSync(process.execPath, [...RUN_TYPESCRIPT, join(import.meta.dirname, 'cache-memory.ts'), '--case', name, String(pages)], { encoding: 'utf8' });
  const measured = JSON.parse(output.trim().split('\n').at(-1)!) as Measured;
  const held = measured.heapBytes + measured.externalBytes;
  const ratio = held / measured.countedBytes;
  console.log(`${name}: ${measured.entries} pages, counted ${measured.countedBytes} B, held ${held} B (${ratio.toFixed(2)}× counted)`);
  rows.push([
    name,
    measured.entries,
    Math.round(measured.countedBytes / measured.entries),
    Math.round(measured.heapBytes / measured.entries),
    Math.round(measured.externalBytes / measured.entries),
    `${ratio.toFixed(2)}×`,
  ]);
  targets.push({
    path: `search page cache, ${name}: memory held per byte counted`,
    goal: '≤ 1.0× (its budget bounds its memory)',
    node: process.version,
    value: `${ratio.toFixed(2)}×`,
    met: ratio <= 1,
  });
}

writeTargets('cache-memory', targets);
writeReport(
  'cache-memory',
  `## Search page cache: memory held against its budget

${machineLine()}. Each case is a tms app in a process of its own (the catalogue, LevelDB), asked for ${pages} pages
with a time range of their own, each twice, after 200 searches of warm-up. "Held" is the growth of the V8 heap and
of memory outside it (Buffers) across those searches, after full garbage collections; "counted" is what the cache
charged its 32 MiB budget for the same pages (\`tms_cache_bytes{cache="search_page"}\`). A page's events are
shared with the version cache (64 MiB, counted there), so "held" is mostly the key, the bookkeeping and what the
faces keep with a page: its output object and its encoded reply.

${table(['case', 'pages kept', 'counted B/page', 'heap B/page', 'outside the heap B/page', 'held ÷ counted'], rows)}
`,
);
