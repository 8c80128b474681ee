// `npm run bench -- --quick`: every bench runs small and brief, so that none of them rots. Its figures mean
// nothing (it shares the machine with the rest of the suite) and nothing here judges them: the test asserts
// that each bench ran without a failed request and that the report has every target, with a verdict.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TargetResult } from '../../bench/lib/targets.ts';
import { RUN_TYPESCRIPT } from '../../src/typescript/node-options.ts';

const root = join(import.meta.dirname, '..', '..');
const TARGETS = [
  /^REST search, a new time range each request, 10\^3-event timeline$/,
  /^REST search, a new time range each request, [\d,]+-event timeline$/,
  /^REST search, the same query repeated$/,
  /^Connect JSON SearchEvents/,
  /^gRPC SearchEvents/,
  /^REST manipulate-event on a branch$/,
  /^event-loop delay p99 during writes back to back/,
  /^bulk load of [\d,]+ events/,
  /^search page cache, REST, 10-event pages:/,
  /^search page cache, REST, pages that found nothing:/,
  /^search page cache, Connect JSON, 10-event pages:/,
  /^search page cache, Connect JSON, pages that found nothing:/,
];

test('the quick bench runs every bench and reports every target with a verdict', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-bench-quick-test-'));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [...RUN_TYPESCRIPT, 'bench/run.ts', '--quick'], {
      cwd: root,
      env: { ...process.env, BENCH_REPORTS_DIR: dir },
      maxBuffer: 64 * 1024 * 1024,
    }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`bench --quick failed: ${error.message}\n${error.stdout ?? ''}\n${error.stderr ?? ''}`);
    });
    assert.match(stdout, /wrote .*REPORT\.md/);
    const report = await readFile(join(dir, 'REPORT.md'), 'utf8');
    const targets: TargetResult[] = [];
    for (const name of ['http', 'search-under-load', 'engine-store', 'cache-memory']) {
      targets.push(...(JSON.parse(await readFile(join(dir, `${name}.targets.json`), 'utf8')) as TargetResult[]));
    }
    for (const pattern of TARGETS) {
      const found = targets.filter((target) => pattern.test(target.path));
      assert.is(found.length, 1, `one target matches ${pattern}`);
      const [target] = found;
      assert.type(target!.met, 'boolean');
      assert.ok(target!.ratio !== undefined || target!.value !== undefined, `${target!.path}: a measured figure`);
      assert.ok(report.includes(`| ${target!.path} |`), `${target!.path}: a row in the report's target table`);
    }
    for (const section of ['## Targets', '## HTTP faces vs bare servers', '## engine-store', '## Analysis engine', '## Search latency during paradox checks', '## Search page cache: memory held against its budget', '## Paradox checks against the anchors pinned on the timeline']) {
      assert.ok(report.includes(section), `the report has "${section}"`);
    }
    assert.not.match(report, /\| NaN|undefined/, 'every figure was measured');
    assert.ok(report.includes('](targets.svg)'), "the Targets section links the chart");
    const chart = await readFile(join(dir, 'targets.svg'), 'utf8');
    assert.ok(chart.startsWith('<svg') && chart.includes('REST manipulate-event on a branch'), 'targets.svg charts the targets');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
