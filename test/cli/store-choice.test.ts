// Which store a command works on when both a folder and a database are named: a flag names it over an environment
// variable (as every setting), and two flags are refused rather than one silently ignored.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { refusal, tms } from '../support/cli.ts';

/** Nothing listens on port 1: a command that tried this database would fail. */
const NOWHERE = 'postgres://tms:secret@127.0.0.1:1/tms';

test('users and keys: --data-dir works on the folder even with TMS_DATABASE_URL set; with --database-url too, refused', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-store-choice-'));
  try {
    const dataDir = join(dir, 'data');
    const created = await tms(['users', 'create', 'ada', '--scopes', 'read', '--data-dir', dataDir], { TMS_DATABASE_URL: NOWHERE });
    assert.is(created.code, 0, created.stderr);
    const listed = await tms(['users', 'list', '--data-dir', dataDir], { TMS_DATABASE_URL: NOWHERE });
    assert.is(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /\bada\b/);
    const keys = await tms(['keys', 'list', '--data-dir', dataDir], { TMS_DATABASE_URL: NOWHERE });
    assert.is(keys.code, 0, keys.stderr);
    const notPostgres = await tms(['users', 'list', '--data-dir', dataDir], { TMS_DATABASE_URL: 'mysql://tms:secret@db/tms' });
    assert.is(notPostgres.code, 0, `a variable the flag overrides is not read: ${notPostgres.stderr}`);

    const both = await tms(['users', 'list', '--data-dir', dataDir, '--database-url', NOWHERE]);
    assert.is(refusal(both), 'error: give either --data-dir (a LevelDB folder) or --database-url (PostgreSQL), not both');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('an empty TMS_DATA_DIR or TMS_DATABASE_URL is one not set: the default folder, for every command', async () => {
  const run = await tms(['users', 'list', '--json'], { TMS_DATA_DIR: '', TMS_DATABASE_URL: '' });
  if (existsSync('data')) assert.is(run.code, 0, run.stderr);
  else assert.is(refusal(run), 'error: no tms data folder at ./data (give it with --data-dir or TMS_DATA_DIR)');
});

test('serve: both flags are refused in one line before anything opens', async () => {
  const run = await tms(['serve', '--port', '0', '--data-dir', join(tmpdir(), 'tms-never-made'), '--database-url', NOWHERE]);
  assert.is.not(run.code, 0);
  assert.match(run.stderr, /give either --data-dir \(a LevelDB folder\) or --database-url \(PostgreSQL\), not both/);
  assert.not.match(run.stderr, /secret/);
});

test.run();
