// Runs every test file in its own process (servers, ports and stores never leak between files),
// prints each file's output, and closes with the totals line CI reads: "N passed, N failed".
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { RUN_TYPESCRIPT } from '../src/typescript/node-options.ts';
import { runInsideThrowAwayPostgres } from './throw-away-postgres.ts';

const exitCode = await runInsideThrowAwayPostgres();
if (exitCode !== undefined) process.exit(exitCode);

const root = new URL('.', import.meta.url).pathname;
const filter = process.argv[2];
const concurrency = Number(process.env.TEST_CONCURRENCY ?? 2);
const FILE_TIMEOUT_MS = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 600_000);

function findTests(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

interface FileResult { file: string; passed: number; failed: number; output: string }

function runFile(file: string): Promise<FileResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...RUN_TYPESCRIPT, file], {
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    // A file that hangs must fail, not hold CI until its own limit.
    const limit = setTimeout(() => {
      output += `\n${relative(process.cwd(), file)}: still running after ${FILE_TIMEOUT_MS / 1000} s; stopped\n`;
      child.kill('SIGKILL');
    }, FILE_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(limit);
      const total = Number(/Total:\s+(\d+)/.exec(output)?.[1] ?? 0);
      const passed = Number(/Passed:\s+(\d+)/.exec(output)?.[1] ?? 0);
      const skipped = Number(/Skipped:\s+(\d+)/.exec(output)?.[1] ?? 0);
      let failed = total - passed - skipped;
      // A file that crashed or exited non-zero without reporting a failure still counts as one.
      if ((code !== 0 || total === 0) && failed === 0) failed = 1;
      resolve({ file: relative(process.cwd(), file), passed, failed, output });
    });
  });
}

const files = findTests(root).filter((f) => !filter || f.includes(filter)).sort();
const results: FileResult[] = [];
let next = 0;
async function worker(): Promise<void> {
  while (next < files.length) {
    const file = files[next++]!;
    const result = await runFile(file);
    results.push(result);
    process.stdout.write(`\n### ${result.file}: ${result.passed} passed, ${result.failed} failed\n${result.output}`);
  }
}
await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));

const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
const failedFiles = results.filter((r) => r.failed > 0).map((r) => r.file);
if (failedFiles.length) console.log(`\nFailing files:\n  ${failedFiles.join('\n  ')}`);
console.log(`\n${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
