// The tms command as its own process, and the shape of its refusals.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { openStorage, type Storage, type StorageOptions } from '../../src/store/storage.ts';
import { RUN_TYPESCRIPT } from '../../src/typescript/node-options.ts';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real command, as its own process. */
export function tms(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) =>
    execFile(process.execPath, [...RUN_TYPESCRIPT, join('src', 'cli', 'main.ts'), ...args], { timeout: 120_000, env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    ),
  );
}

/** The error line of a refused command: exactly one line starting `error:`, and no stack trace. */
export function refusal(run: Run): string {
  assert.ok(run.code !== 0, `exit code ${run.code}`);
  const lines = run.stderr.split('\n').filter((line) => line.startsWith('error:'));
  assert.is(lines.length, 1, run.stderr);
  assert.not.match(run.stderr, /\n\s+at /, 'no stack trace');
  return lines[0]!;
}

/** A store opened for the work, then closed. */
export async function withStorage<T>(options: StorageOptions, work: (storage: Storage) => Promise<T>): Promise<T> {
  const storage = await openStorage({ ...options, primaryOwner: '' });
  try {
    return await work(storage);
  } finally {
    await storage.close();
  }
}
