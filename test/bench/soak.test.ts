// `npm run soak`, 30 seconds: a mixed load over REST, Connect and gRPC against a real tms process that is
// killed with SIGKILL and restarted on its data folder. Asserted here: at least one kill and restart, every
// acknowledged write read back after it and at the end with none lost, no 5xx outside the restarts, and the
// report and its chart written. Memory and event-loop figures are reported by the soak but not judged here:
// the suite shares the machine with other test files, which is no place to measure them.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RUN_TYPESCRIPT } from '../../src/typescript/node-options.ts';

const root = join(import.meta.dirname, '..', '..');

interface SoakSummary {
  requests: number;
  byFace: Record<string, number>;
  writesAcknowledged: number;
  writesLost: number;
  lost: string[];
  serverErrorsOutsideRestarts: number;
  clientErrors: number;
  restarts: number;
  readBacks: number;
  failures: string[];
  checks: { name: string; measured: string; met: boolean }[];
  lives: { life: number; majorGcPerMin?: number; longGcPausesPerMin?: number }[];
  samples: { parts?: { v8Pages: number; malloc: number } }[];
}

test('a 30-second soak with a kill -9 loses no acknowledged write and answers no 5xx outside the restart', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-soak-test-'));
  try {
    const started = Date.now();
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [...RUN_TYPESCRIPT, 'bench/soak.ts', '--seconds', '30', '--concurrency', '4', '--kills', '1', '--seed', '15'],
        { cwd: root, env: { ...process.env, BENCH_REPORTS_DIR: dir }, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
        (_error, stdout, stderr) => resolve({ code: child.exitCode, output: `${stdout}\n${stderr}` }),
      );
    });
    // 1 is a failed check (judged below, one by one); anything else is a crash.
    assert.ok(code === 0 || code === 1, `the soak ran to its report (exit ${code}):\n${output}`);
    const summary = JSON.parse(await readFile(join(dir, 'soak.json'), 'utf8')) as SoakSummary;
    const completed = summary.checks.find((check) => check.name === 'the run completed');
    assert.ok(completed?.met, `the run completed: ${completed?.measured}\n${output}`);
    assert.ok(summary.restarts >= 1, 'at least one kill -9 and restart');
    assert.ok(summary.readBacks >= 2, 'read back after the restart and at the end');
    assert.ok(summary.writesAcknowledged > 0, 'writes were acknowledged');
    assert.is(summary.writesLost, 0, `no acknowledged write lost: ${summary.lost.join('; ')}`);
    assert.is(summary.serverErrorsOutsideRestarts, 0, `no 5xx outside restarts: ${summary.failures.join('; ')}`);
    assert.is(summary.clientErrors, 0, `no 4xx: ${summary.failures.join('; ')}`);
    for (const face of ['REST', 'Connect', 'gRPC']) assert.ok((summary.byFace[face] ?? 0) > 0, `requests over ${face}`);
    const first = summary.lives[0];
    assert.ok(first && first.majorGcPerMin! >= 0 && first.longGcPausesPerMin! >= 0, `the first life's collections a minute: ${JSON.stringify(first)}`);
    const parts = summary.samples.filter((sample) => sample.parts);
    assert.ok(parts.length >= 2 && parts.every(({ parts }) => parts!.v8Pages > 0 && parts!.malloc > 0), 'where the resident memory was, sampled as it ran');
    const report = await readFile(join(dir, 'soak.md'), 'utf8');
    assert.ok(report.includes('## Soak') && report.includes('](soak.svg)'), 'the report, linking its chart');
    assert.ok(report.includes("Where each life's resident memory was"), 'the report, with its table of where the memory was');
    assert.match(report, /\| acknowledged writes lost \| 0 \| 0 \| met \|/);
    const svg = await readFile(join(dir, 'soak.svg'), 'utf8');
    assert.ok(svg.startsWith('<svg') && svg.includes('>kill 1<') && svg.includes('>RSS (MiB)<'), 'the chart, with the kill marked');
    console.log(`soak test: ${summary.requests} requests, ${summary.writesAcknowledged} writes acknowledged, ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
