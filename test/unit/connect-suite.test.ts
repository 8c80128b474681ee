// uvu formats a failure's `details` as text; a ConnectError's are an array. connectSuite keeps such a failure readable.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { RUN_TYPESCRIPT } from '../../src/typescript/node-options.ts';

const child = join(import.meta.dirname, 'fixtures', 'connect-suite-child.ts');
const run = () =>
  new Promise<{ code: number | null; output: string }>((resolve) => {
    execFile(process.execPath, [...RUN_TYPESCRIPT, child], { env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } }, (error, stdout, stderr) =>
      resolve({ code: error ? (error.code as number) : 0, output: stdout + stderr }),
    );
  });

const connectSuite = suite('connectSuite');
connectSuite('a ConnectError escaping a test is reported with its code and message, and the next test still runs', async () => {
  const { code, output } = await run();
  assert.is.not(code, 0, 'the file fails');
  assert.match(output, 'ConnectError [NotFound]: timeline "nope" not found');
  assert.match(output, /Total:\s+2/);
  assert.match(output, /Passed:\s+1/);
  assert.not.match(output, 'split is not a function');
});
connectSuite.run();
