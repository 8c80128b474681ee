// tms copy-store: a whole store from one backend to another, byte for byte, verified; LevelDB → LevelDB always,
// and LevelDB → PostgreSQL → LevelDB when TMS_TEST_DATABASE_URL is set.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AccessControl } from '../../src/accounts/access.ts';
import { OPERATOR } from '../../src/accounts/principal.ts';
import { loadCatalogueIfEmpty } from '../../src/catalogue/load.ts';
import { checkTimelines, copyStore } from '../../src/store/copy-store.ts';
import { openStorage, type Storage, type StorageOptions } from '../../src/store/storage.ts';
import { parseInstant } from '../../src/time/index.ts';
import { CHEAP_SCRYPT } from '../support/accounts.ts';
import { TEST_DATABASE_URL } from '../support/backends.ts';
import { createDatabase, dropDatabase, stagingSchemas } from '../support/postgres.ts';
import { refusal, tms } from '../support/cli.ts';
import { RUN_TYPESCRIPT } from '../../src/typescript/node-options.ts';

/** A store with a bit of everything: the catalogue, branches of both kinds, changes, anchors, accounts, saved requests. */
async function fillStore(storage: Storage): Promise<void> {
  const store = storage.timelines;
  await loadCatalogueIfEmpty(store);
  const alternate = await store.createTimeline({ kind: 'alternate', base_timeline_id: 'primary', description: 'alt', variation: '', owner: 'ada' });
  const parallel = await store.createTimeline({ kind: 'parallel', base_timeline_id: alternate.timeline_id, description: 'par', variation: 'v', owner: 'ada' });
  const changed = await store.manipulate(alternate.timeline_id, 'storming-of-the-bastille', { description: 'peaceful', changes: [{ action: 'reschedule', time: parseInstant('1789-07-15T00:00:00Z') }] }, 'ada');
  await store.revert(parallel.timeline_id, changed.created.event_id, 'ada');
  await store.insertEvent(parallel.timeline_id, { description: 'arrival', time: parseInstant('-000044-03-15T12:00:00.000000001Z'), location: 'Rome, Italy', causes: [], kind: 'arrival', traveller: 'tr_1' }, 'ada');
  await store.putAnchor({ anchor_id: 'anc_1', timeline_id: parallel.timeline_id, timestamp: '1900-01-01T00:00:00Z', note: 'kept as given' });
  await store.setStability(alternate.timeline_id, 'Stable');
  const access = await AccessControl.open(storage.accounts, { scrypt: CHEAP_SCRYPT });
  await access.ensureAdmin({ adminKey: 'copy-store-admin-key-0001' });
  await access.createAccount(OPERATOR, { username: 'ada', password: 'ada-password-1', scopes: ['read', 'write'] });
  await access.login('ada', 'ada-password-1', '127.0.0.1');
  await access.close();
  await storage.savedRequests.put({ id: 'req_1', name: 'Paris', method: 'GET', path: '/v1/search-events?location=Paris', headers: {}, body: '', created_at: '2026-11-24T10:00:00.000Z', owner: 'ada', share_token: 'shr_1' });
}

async function everything(options: StorageOptions) {
  const storage = await openStorage({ ...options, primaryOwner: '' });
  try {
    const saved = [];
    for await (const record of storage.savedRequests.all()) saved.push(record);
    return { timelines: await checkTimelines(storage.timelines), accounts: await storage.accounts.loadAll(), saved };
  } finally {
    await storage.close();
  }
}

/** A LevelDB store in `dir/source`, filled by `fillStore`. */
async function filledSource(dir: string): Promise<StorageOptions> {
  const source = { dataDir: join(dir, 'source') };
  const filled = await openStorage(source);
  try {
    await fillStore(filled);
  } finally {
    await filled.close();
  }
  return source;
}

async function copy(from: StorageOptions, to: StorageOptions) {
  const source = await openStorage({ ...from, primaryOwner: '' });
  const target = await openStorage({ ...to, primaryOwner: '' });
  try {
    return await copyStore(source, target);
  } finally {
    await target.close();
    await source.close();
  }
}

test('a copy holds everything its source held, timeline by timeline, and refuses a target that is not new', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-copy-'));
  try {
    const source = await filledSource(dir);
    const report = await copy(source, { dataDir: join(dir, 'copy') });
    assert.equal([report.accounts, report.keys, report.sessions, report.savedRequests], [2, 1, 1, 1]);
    const original = await everything(source);
    assert.is(original.timelines.length, 3);
    assert.ok(original.timelines[0]!.events > 300, 'the catalogue is in it');
    assert.equal(await everything({ dataDir: join(dir, 'copy') }), original);
    try {
      await copy(source, { dataDir: join(dir, 'copy') });
      assert.unreachable('copied over a store');
    } catch (error) {
      assert.match(String(error), 'the target store is not empty: copy into a new folder or an empty database');
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("tms copy-store leaves out a key and a session whose account was removed, on every backend, and says so", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-copy-stray-'));
  const databaseUrl = TEST_DATABASE_URL ? await createDatabase(TEST_DATABASE_URL) : undefined;
  try {
    const source = await filledSource(dir);
    const filled = await openStorage(source);
    try {
      await filled.accounts.putKey({
        key_id: 'k-ada', name: 'ada', account: 'ada', scopes: ['read'], created_at: '2026-11-24T10:00:00.000Z', created_by: 'ada', expires_at: null,
        last_used_at: null, last_used_from: null, revoked: false, revoked_at: null, token_sha256: '0'.repeat(64),
      });
      const { keys, sessions } = await filled.accounts.loadAll();
      assert.equal([keys.length, sessions.length], [2, 1]);
      // Removing the account without naming its key and session leaves them, as a store of an older version could.
      await filled.accounts.removeAccount('ada', [], []);
      const left = await filled.accounts.loadAll();
      assert.equal([left.keys.length, left.sessions.length], [keys.length, sessions.length], 'the stray key and session are in the source');
    } finally {
      await filled.close();
    }
    const targets: [string, string, StorageOptions][] = [['LevelDB', join(dir, 'copy'), { dataDir: join(dir, 'copy') }]];
    if (databaseUrl) targets.push(['PostgreSQL', databaseUrl, { dataDir: '', databaseUrl }]);
    const timelines = (await everything(source)).timelines;
    for (const [backend, to, spec] of targets) {
      const run = await tms(['copy-store', '--from', source.dataDir, '--to', to]);
      assert.is(run.code, 0, `${backend}: ${run.stderr}`);
      assert.match(run.stdout, /, 1 accounts, 1 keys, 0 sessions, 1 saved requests; verified; left out 1 keys and 1 sessions whose accounts are not in the source\n$/, backend);
      const copied = await everything(spec);
      assert.equal(copied.accounts.accounts.map((account) => account.username), ['admin'], backend);
      assert.equal(copied.accounts.keys.map((key) => key.account), ['admin'], backend);
      assert.equal(copied.accounts.sessions, [], backend);
      assert.equal(copied.timelines, timelines, backend);
    }
  } finally {
    if (databaseUrl) await dropDatabase(TEST_DATABASE_URL!, databaseUrl);
    await rm(dir, { recursive: true, force: true });
  }
});

test('tms copy-store: the real command copies, shows its progress and says it verified the copy', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-copy-cli-'));
  try {
    await filledSource(dir);
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, [...RUN_TYPESCRIPT, join('src', 'cli', 'main.ts'), 'copy-store', '--from', join(dir, 'source'), '--to', join(dir, 'copy')], { timeout: 120_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? 1 : 0, stdout, stderr }),
      ),
    );
    assert.is(run.code, 0, run.stderr);
    assert.match(run.stderr, /copy \[.*\] 100% \| \d+\/\d+ entries/);
    assert.match(run.stdout, /^copied 3 timelines \(\d+ events, \d+ entries\), 2 accounts, 1 keys, 1 sessions, 1 saved requests; verified\n$/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('tms copy-store refuses a target folder that is not empty with one line, and leaves it as it was', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-copy-full-'));
  try {
    await filledSource(dir);
    await mkdir(join(dir, 'taken'));
    await writeFile(join(dir, 'taken', 'notes.txt'), 'mine');
    const run = await tms(['copy-store', '--from', join(dir, 'source'), '--to', join(dir, 'taken')]);
    assert.match(refusal(run), /^error: the target folder .*taken is not empty; copy into a new or empty folder \(nothing was written\)$/);
    assert.equal(await readdir(join(dir, 'taken')), ['notes.txt']);
    assert.equal((await readdir(dir)).sort(), ['source', 'taken'], 'no staging folder left beside it');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

if (TEST_DATABASE_URL) {
  const adminUrl = TEST_DATABASE_URL;
  test('tms copy-store into PostgreSQL: staged in a schema of its own, swapped in, verified', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tms-copy-cli-pg-'));
    const databaseUrl = await createDatabase(adminUrl);
    try {
      const source = await filledSource(dir);
      const run = await tms(['copy-store', '--from', source.dataDir, '--to', databaseUrl]);
      assert.is(run.code, 0, run.stderr);
      assert.match(run.stdout, /^copied 3 timelines \(\d+ events, \d+ entries\), 2 accounts, 1 keys, 1 sessions, 1 saved requests; verified\n$/);
      assert.equal(await everything({ dataDir: '', databaseUrl }), await everything(source));
      assert.equal(await stagingSchemas(databaseUrl), [], 'the staging schema is gone');
    } finally {
      await dropDatabase(adminUrl, databaseUrl);
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('LevelDB to PostgreSQL and back: the same store at every step', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tms-copy-pg-'));
    const databaseUrl = await createDatabase(adminUrl);
    try {
      const source = await filledSource(dir);
      const original = await everything(source);
      const onPostgres = { dataDir: '', databaseUrl };
      await copy(source, onPostgres);
      assert.equal(await everything(onPostgres), original);
      await copy(onPostgres, { dataDir: join(dir, 'back') });
      assert.equal(await everything({ dataDir: join(dir, 'back') }), original);
    } finally {
      await dropDatabase(adminUrl, databaseUrl);
      await rm(dir, { recursive: true, force: true });
    }
  });
}

test.run();
