// The project's TypeScript hooks (src/typescript/): types stripped and nothing else. Closures keep their names
// without esbuild's keepNames wrapping each one as it is made, and stack traces point into the TypeScript files.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { RUN_TYPESCRIPT } from '../../src/typescript/node-options.ts';

const FIXTURE = `interface Shape { size: number }
class Box {
  constructor(private readonly shape: Shape) {}
  closure() {
    const measured = () => this.shape.size;
    return measured;
  }
  fail(): never {
    throw new Error('failed on purpose');
  }
}
const box = new Box({ size: 3 });
const made = box.closure();
let stack = '';
try {
  box.fail();
} catch (error) {
  stack = (error as Error).stack ?? '';
}
console.log(JSON.stringify({ name: made.name, value: made(), source: Box.prototype.closure.toString(), stack }));
`;

test('a file run with RUN_TYPESCRIPT: closures named without a wrapper, parameter properties, stacks in the .ts file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-typescript-'));
  try {
    const file = join(dir, 'fixture.ts');
    await writeFile(file, FIXTURE);
    // Run from another folder: the option names the hooks by URL, not relative to the working directory.
    const { stdout } = await promisify(execFile)(process.execPath, [...RUN_TYPESCRIPT, file], { cwd: dir });
    const seen = JSON.parse(stdout) as { name: string; value: number; source: string; stack: string };
    assert.is(seen.name, 'measured');
    assert.is(seen.value, 3);
    assert.not.match(seen.source, '__name', 'a closure made per call is not passed through a naming helper');
    assert.match(seen.stack, `${file}:9:`, 'the stack names the TypeScript file and line');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the analysis worker loads its TypeScript when the hooks were registered from code (as bin/tms.js does), not by --import', async () => {
  const at = (path: string) => JSON.stringify(new URL(path, import.meta.url).href);
  // No --import: the worker thread inherits no hooks, and on Node 24 type stripping alone cannot load it.
  const script = `
    await import(${at('../../src/typescript/register.mjs')});
    const { AnalysisPool } = await import(${at('../../src/analysis/pool.ts')});
    const { analyseParadoxes } = await import(${at('../../src/analysis/paradoxes.ts')});
    const { randomGraph } = await import(${at('../analysis/random-graph.ts')});
    const pool = new AnalysisPool({ threads: 1 });
    const report = await pool.analyseParadoxes(randomGraph(30_000, 2, 7), []);
    const inline = analyseParadoxes(randomGraph(30_000, 2, 7), []);
    console.log(JSON.stringify({ onWorker: pool.stats().completed, same: JSON.stringify(report) === JSON.stringify(inline) }));
    await pool.close();
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
  const seen = JSON.parse(stdout) as { onWorker: number; same: boolean };
  assert.is(seen.onWorker, 1, 'the graph was analysed on the worker');
  assert.ok(seen.same, 'with the report the request thread makes');
});

test.run();
