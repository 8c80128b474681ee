// The soak's account of where a process's resident memory is, read from /proc/<pid>/smaps.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readResidentParts, residentParts } from '../../bench/soak/resident-parts.ts';

/** One smaps entry: its header line and the lines after it, with `rssKiB` resident. */
const entry = (start: bigint, sizeKiB: number, name: string, rssKiB: number) =>
  [
    `${start.toString(16)}-${(start + BigInt(sizeKiB) * 1024n).toString(16)} rw-p 00000000 00:00 0${name ? `          ${name}` : ''}`,
    `Size:           ${sizeKiB} kB`,
    `Rss:            ${rssKiB} kB`,
    'Pss:            0 kB',
    'VmFlags: rd wr mr mw me ac',
  ].join('\n');

test('V8 pages, malloc arenas, other anonymous memory and files are told apart', () => {
  const arena = 0x7f7c50000000n; // at a 64-MiB boundary
  const smaps = [
    entry(0x55d000000000n, 10_240, '/usr/bin/node', 8_192),
    entry(0x55e000001000n, 68_000, '[heap]', 67_000),
    entry(arena, 23_000, '', 22_000),
    entry(0x3f5388040000n, 256, '', 256),
    entry(0x3f5388080000n, 256, '', 200),
    entry(0x7f7828000000n + 0x7fb000n, 32_772, '', 32_772),
    entry(0x7ffd00000000n, 132, '[stack]', 100),
  ].join('\n');
  assert.equal(residentParts(smaps), { v8Pages: 456 / 1024, malloc: (67_000 + 22_000) / 1024, otherAnonymous: (32_772 + 100) / 1024, files: 8 });
});

test('this process has some of each, and they add up to about its RSS', async () => {
  const parts = (await readResidentParts(process.pid))!;
  assert.ok(parts.v8Pages > 0 && parts.malloc > 0 && parts.files > 0, JSON.stringify(parts));
  const total = parts.v8Pages + parts.malloc + parts.otherAnonymous + parts.files;
  const rss = process.memoryUsage().rss / 2 ** 20;
  assert.ok(Math.abs(total - rss) < rss * 0.1, `${total.toFixed(1)} MiB in parts, ${rss.toFixed(1)} MiB RSS`);
});

test('a process that is gone gives nothing', async () => {
  assert.is(await readResidentParts(2 ** 22 + 1), undefined);
});

test.run();
