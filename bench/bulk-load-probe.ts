/**
 * One bulk load, watched: N synthetic events into a fresh LevelDB store (as bench/engine-store.ts loads them),
 * with RSS, V8 heap and Buffer memory sampled every second and the figures at the end. For iterating on the
 * load without the whole engine-store bench; docs/performance.md § Bulk load has what it showed.
 *
 *   node --import ./src/typescript/register.mjs bench/bulk-load-probe.ts [events, default 1000000]        (KEEP=1 keeps the store)
 *   /usr/bin/time -v node --cpu-prof --import ./src/typescript/register.mjs bench/bulk-load-probe.ts 200000
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { LevelTimelineStore } from '../src/store/index.ts';
import { generateSyntheticEvents } from '../src/synthetic/generator.ts';

const MIB = 2 ** 20;
const events = Number(process.argv[2] ?? 1_000_000);
const dir = await mkdtemp(join(tmpdir(), 'tms-bulk-probe-'));
const db = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' });
await db.open();
const store = new LevelTimelineStore(db);
await store.open();

const lines: string[] = [];
const started = performance.now();
const at = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
const sampler = setInterval(() => {
  const m = process.memoryUsage();
  const mib = (bytes: number) => (bytes / MIB).toFixed(0);
  lines.push(`${at()}: RSS ${mib(m.rss)} MiB, heap ${mib(m.heapUsed)}/${mib(m.heapTotal)}, Buffers ${mib(m.arrayBuffers)}`);
}, 1000);
const cpuBefore = process.cpuUsage();
let reported = 0;
await store.bulkLoad('primary', generateSyntheticEvents({ events, places: 1000, seed: 7 }), {
  batchSize: 5000,
  onProgress: (loaded) => {
    if (loaded - reported < events / 10) return;
    reported = loaded;
    lines.push(`  ${loaded} loaded at ${at()}`);
  },
});
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
clearInterval(sampler);
await store.close();
await db.close();
let bytes = 0;
for (const name of await readdir(dir)) bytes += (await stat(join(dir, name))).size;
console.log(lines.join('\n'));
console.log(JSON.stringify({ seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, maxRssMiB: process.resourceUsage().maxRSS / 1024, diskMiB: bytes / MIB }));
if (process.env['KEEP']) console.log(dir);
else await rm(dir, { recursive: true, force: true });
