import { spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RUN_TYPESCRIPT } from '../../src/typescript/node-options.ts';

const fixture = new URL('./fixtures/interrupted-work.ts', import.meta.url).pathname;

test('work that fails because a signal undid it is not reported as an error: the command says it was interrupted, exit 130', async () => {
  const child = spawn(process.execPath, [...RUN_TYPESCRIPT, fixture], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout.once('data', () => child.kill('SIGINT'));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exit) => resolve(exit)));
  assert.is(code, 130, stderr);
  assert.is(stderr, '\ninterrupted (SIGINT): nothing was kept\n');
});

test.run();
