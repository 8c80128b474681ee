// Output that cannot be written: a full disk (/dev/full), a pipe closed by its reader.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RUN_TYPESCRIPT } from '../../src/typescript/node-options.ts';
import { tms } from '../support/cli.ts';

/** The command with its stdout on a device that is always full. */
function toFullDevice(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const full = openSync('/dev/full', 'w');
  const child = spawn(process.execPath, [...RUN_TYPESCRIPT, join('src', 'cli', 'main.ts'), ...args], { stdio: ['ignore', full, 'pipe'] });
  closeSync(full);
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

test('a generated password or key that cannot be written is taken back; other output fails the command in one line', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-output-errors-'));
  try {
    const dataDir = join(dir, 'data');
    const created = await toFullDevice(['users', 'create', 'piped', '--scopes', 'read', '--data-dir', dataDir]);
    assert.is(created.code, 1);
    assert.is(
      created.stderr.split('\n').filter((line) => line.startsWith('error:')).join('\n'),
      'error: the generated password could not be written (ENOSPC), so account piped was not kept; run the command again with its output going somewhere that can take it',
      'one error line',
    );
    assert.not.match(created.stderr, /\n\s+at /, 'no stack trace');
    const listed = await tms(['users', 'list', '--json', '--data-dir', dataDir]);
    assert.equal(JSON.parse(listed.stdout), [], 'the account is gone');

    const firstAdmin = await toFullDevice(['users', 'create', 'boss', '--scopes', 'read,write,admin', '--data-dir', dataDir]);
    assert.is(firstAdmin.code, 1);
    assert.match(firstAdmin.stderr, 'so account boss was not kept');
    const stillNone = await tms(['users', 'list', '--json', '--data-dir', dataDir]);
    assert.equal(JSON.parse(stillNone.stdout), [], 'the first admin is taken back too: the store is as it was');

    const withPassword = await toFullDevice(['users', 'create', 'chosen', '--scopes', 'read', '--password', 'a-password-given', '--data-dir', dataDir]);
    assert.is(withPassword.code, 1, 'the confirmation could not be written');
    assert.is(withPassword.stderr, "error: the command's output could not be written (ENOSPC); it is incomplete\n");
    const listedAgain = await tms(['users', 'list', '--json', '--data-dir', dataDir]);
    assert.equal(
      (JSON.parse(listedAgain.stdout) as { username: string }[]).map((account) => account.username),
      ['chosen'],
      'an account whose password its maker chose is kept',
    );

    const key = await toFullDevice(['keys', 'create', '--user', 'chosen', '--name', 'ci', '--scopes', 'read', '--data-dir', dataDir]);
    assert.is(key.code, 1);
    assert.match(key.stderr, /^error: the key could not be written \(ENOSPC\), so key key_\w+ was revoked; run the command again/m);
    const keys = JSON.parse((await tms(['keys', 'list', '--json', '--data-dir', dataDir])).stdout) as { revoked: boolean }[];
    assert.equal(keys.map((listed) => listed.revoked), [true], 'a key whose secret nobody saw works for nobody');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
