import { existsSync } from 'node:fs';
// tms backup / tms restore (issue 15 item 6), the refusals: damaged, foreign and misdirected restores refused
// with one line, writing nothing; the backup route and command refuse anyone but an admin. The round trip
// under write load is backup-round-trip.test.ts.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { spawn } from 'node:child_process';
import { connect as netConnect, type AddressInfo } from 'node:net';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkTimelines, isEmptyStore } from '../../src/store/copy-store.ts';
import { generateSyntheticEvents } from '../../src/synthetic/generator.ts';
import { ADMIN_KEY, call, startTestServer } from '../support/server.ts';
import { BackupEncoder, BackupFileError, FIRST_LINE, readBackup, verifyBackup } from '../../src/store/backup-format.ts';
import type { KeyRecord, SessionRecord } from '../../src/accounts/records.ts';
import { TEST_DATABASE_URL } from '../support/backends.ts';
import { createDatabase, createRole, dropDatabase, stagingSchemas, startRelay, withClient } from '../support/postgres.ts';
import { eventually } from '../support/eventually.ts';
import { refusal, tms, withStorage } from '../support/cli.ts';
import { startServeProcess } from '../support/serve-process.ts';
import type { StorageOptions } from '../../src/store/storage.ts';
import { RUN_TYPESCRIPT } from '../../src/typescript/node-options.ts';

// ------------------------------------------------------------------ refusals

/** A small store (3000 events, a branch) and its backup, made offline once, for the refusals; tests copy them. */
let small: Promise<{ dataDir: string; file: string }> | undefined;
const smallDir = mkdtemp(join(tmpdir(), 'tms-backup-small-'));
test.after(async () => rm(await smallDir, { recursive: true, force: true }));

/** A backup of 30 000 events in `dir`: one that takes a restore a while to load. */
async function largeBackup(dir: string): Promise<string> {
  const source = join(dir, 'source');
  await withStorage({ dataDir: source }, (storage) => storage.timelines.bulkLoad('primary', generateSyntheticEvents({ events: 30_000, places: 50, seed: 2, maxCauses: 2 })));
  const file = join(dir, 'big.tmsbackup');
  assert.is((await tms(['backup', file, '--data-dir', source, '--no-progress'])).code, 0);
  return file;
}

async function smallBackup(dir: string): Promise<string> {
  small ??= (async () => {
    const dataDir = join(await smallDir, 'small');
    await withStorage({ dataDir }, async (storage) => {
      await storage.timelines.bulkLoad('primary', generateSyntheticEvents({ events: 3000, places: 50, seed: 1, maxCauses: 2 }));
      await storage.timelines.createTimeline({ kind: 'alternate', base_timeline_id: 'primary', description: 'b', variation: '', owner: '' });
    });
    const file = join(await smallDir, 'small.tmsbackup');
    const made = await tms(['backup', file, '--data-dir', dataDir, '--no-progress']);
    assert.is(made.code, 0, made.stderr);
    assert.match(made.stdout, /^backed up 2 timelines \(\d+ entries\), 0 accounts, 0 keys, 0 sessions, 0 saved requests to .* \([\d.]+ MiB\) in [\d.]+ s; verified\n$/);
    return { dataDir, file };
  })();
  const { dataDir, file } = await small;
  await cp(dataDir, join(dir, 'small'), { recursive: true });
  await cp(file, join(dir, 'small.tmsbackup'));
  return join(dir, 'small.tmsbackup');
}

test('a truncated, damaged or foreign file is refused by the check a restore runs first, naming what is wrong', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-backup-check-'));
  try {
    const file = await smallBackup(dir);
    const good = await readFile(file);
    await verifyBackup(file);
    const cases: [string, Buffer | undefined, string, RegExp][] = [
      ['truncated', good.subarray(0, Math.floor(good.length * 0.6)), 'damaged', /is damaged \(it ends early: truncated\?\)$/],
      ['cut inside the trailer', good.subarray(0, good.length - 9), 'damaged', /is damaged \(it ends early: truncated\?\)$/],
      ['gzip of something else', Buffer.concat([Buffer.from('TMS-BACKUP 1\n'), randomBytes(1000)]), 'damaged', /is damaged \(compressed data: .*\)$/],
      ['only the first line', Buffer.from('TMS-BACKUP 1\n'), 'damaged', /is damaged \(it ends early: truncated\?\)$/],
      ['random bytes', randomBytes(4096), 'foreign', /is not a tms backup \(it does not begin with "TMS-BACKUP"\)$/],
      ['empty', Buffer.alloc(0), 'foreign', /is empty, not a tms backup$/],
      ['a later format', Buffer.concat([Buffer.from('TMS-BACKUP 9\n'), good.subarray(13)]), 'newer', /is a tms backup in format 9, newer than this build's 1$/],
      ['missing', undefined, 'missing', /does not exist$/],
    ];
    // A byte flipped in the first line, the gzip magic, the compressed data or the gzip trailer is caught too.
    // (Bytes 4-9 of the gzip header, its time stamp and OS, carry no data: a flip there changes nothing restored.)
    for (const at of [0, 5, 13, 14, 25, 100, Math.floor(good.length / 3), good.length - 30, good.length - 5, good.length - 1]) {
      const flipped = Buffer.from(good);
      flipped[at]! ^= 0x10;
      cases.push([`byte ${at} flipped`, flipped, at < 13 ? 'foreign' : 'damaged', /./]);
    }
    for (const [name, bytes, kind, message] of cases) {
      const path = join(dir, `${name.replace(/ /g, '-')}.tmsbackup`);
      if (bytes) await writeFile(path, bytes);
      try {
        await verifyBackup(path);
        assert.unreachable(`${name}: accepted`);
      } catch (error) {
        assert.instance(error, BackupFileError, `${name}: ${String(error)}`);
        assert.is((error as BackupFileError).kind, kind, `${name}: ${(error as Error).message}`);
        assert.match((error as Error).message, message, name);
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('tms restore refuses a truncated, a damaged, a foreign and a missing file with one line each, and writes nothing', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-restore-bad-'));
  try {
    const good = await readFile(await smallBackup(dir));
    const flipped = Buffer.from(good);
    flipped[Math.floor(good.length / 2)]! ^= 0x01;
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), randomBytes(200)]);
    const cases: [string, Buffer | undefined, RegExp][] = [
      ['truncated', good.subarray(0, Math.floor(good.length * 0.6)), /^error: the backup file .*truncated\.tmsbackup is damaged \(it ends early: truncated\?\); nothing was restored: use another copy of the backup, or make a new one$/],
      ['flipped', flipped, /^error: the backup file .*flipped\.tmsbackup is damaged \(.*\); nothing was restored: use another copy of the backup, or make a new one$/],
      ['png', png, /^error: .*png\.tmsbackup is not a tms backup \(it does not begin with "TMS-BACKUP"\); give a file made by tms backup \(nothing was restored\)$/],
      ['missing', undefined, /^error: the backup file .*missing\.tmsbackup does not exist; give the path of a file made by tms backup$/],
    ];
    for (const [name, bytes, message] of cases) {
      const file = join(dir, `${name}.tmsbackup`);
      if (bytes) await writeFile(file, bytes);
      // An empty folder given as the target stays empty; a folder that did not exist is not made.
      const target = join(dir, `target-${name}`);
      if (name === 'flipped') await mkdir(target);
      const run = await tms(['restore', file, '--data-dir', target]);
      assert.match(refusal(run), message, `${name}: ${run.stderr}`);
      if (name === 'flipped') assert.equal(await readdir(target), [], `${name}: the empty folder stays empty`);
      else assert.is(await stat(target).catch(() => undefined), undefined, `${name}: the target folder was not made`);
    }
    assert.equal((await readdir(dir)).filter((name) => name.includes('restoring')), [], 'no staging folder left behind');
    const deep = await tms(['restore', join(dir, 'truncated.tmsbackup'), '--data-dir', join(dir, 'absent', 'deeper', 'store')]);
    assert.match(refusal(deep), /is damaged/);
    assert.is(await stat(join(dir, 'absent')).catch(() => undefined), undefined, 'a file refused while it is checked makes no folder');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** A restore of a large backup into `<dir>/target`, stopped once with SIGINT when its stderr first says `when`. */
async function restoreStopped(dir: string, when: string): Promise<{ code: number | null; stderr: string }> {
  const file = await largeBackup(dir);
  const child = spawn(process.execPath, [...RUN_TYPESCRIPT, join('src', 'cli', 'main.ts'), 'restore', file, '--data-dir', join(dir, 'target'), '--no-progress']);
  let stderr = '';
  let stopped = false;
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
    if (!stopped && stderr.includes(when)) stopped = child.kill('SIGINT');
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exit) => resolve(exit)));
  return { code, stderr };
}

for (const [phase, when, said] of [
  ['loading into its staging folder', 'restoring ', /\ninterrupted \(SIGINT\): nothing was restored into .*target\n/],
  ['checking the file', 'checking ', /\ninterrupted \(SIGINT\): nothing was restored into .*target \(the file was being checked\)\n/],
] as const) {
  test(`a restore stopped with Ctrl-C while ${phase} leaves neither a staging folder nor the target, and says so`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tms-restore-interrupted-'));
    try {
      const { code, stderr } = await restoreStopped(dir, when);
      assert.is(code, 130, stderr);
      assert.match(stderr, said);
      assert.equal((await readdir(dir)).sort(), ['big.tmsbackup', 'source'], 'no staging folder, no target');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}

test('restore refuses a store that is not empty, and leaves it as it was', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-restore-full-'));
  try {
    const file = await smallBackup(dir);
    const target = join(dir, 'small');
    const before = await withStorage({ dataDir: target }, (storage) => checkTimelines(storage.timelines));
    const run = await tms(['restore', file, '--data-dir', target]);
    assert.match(refusal(run), /^error: the target folder .*small is not empty; restore into a new or empty folder \(nothing was written\)$/);
    assert.equal(await withStorage({ dataDir: target }, (storage) => checkTimelines(storage.timelines)), before);
    // A backup file is never silently replaced either.
    const again = await tms(['backup', file, '--data-dir', target]);
    assert.match(refusal(again), /already exists; choose another name, or pass --force to replace it$/);
    assert.not.match(again.stderr, /backing up/, 'nothing said of a backup that never began');
    const unnamed = await tms(['backup', '', '--data-dir', target]);
    assert.is(refusal(unnamed), 'error: the backup file is an empty name; give the path of the backup file to write');
    const both = await tms(['restore', file, '--data-dir', join(dir, 'new'), '--database-url', 'postgres://u@127.0.0.1:1/none']);
    assert.match(refusal(both), /^error: give either --data-dir or --database-url to restore into, not both$/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

// ------------------------------------------------------------------ a backup of an older store

const stamp = '2026-01-01T00:00:00.000Z';
const keyOf = (key_id: string, account: string): KeyRecord => ({
  key_id, name: key_id, account, scopes: ['read'], created_at: stamp, created_by: account, expires_at: null,
  last_used_at: null, last_used_from: null, revoked: false, revoked_at: null, token_sha256: '0'.repeat(64),
});
const sessionOf = (session_id: string, account: string): SessionRecord => ({
  session_id, account, created_at: stamp, expires_at: '2099-01-01T00:00:00.000Z', client: '127.0.0.1', token_sha256: '1'.repeat(64),
});

/**
 * `source` again, with an account ("kept") holding a key and a session, and a key and a session of an account
 * the backup does not hold ("gone"): what a store of an older version could keep after removing an account.
 */
async function withStrayCredentials(source: string, file: string): Promise<void> {
  const encoder = new BackupEncoder();
  const frames: Buffer[] = [];
  for await (const items of readBackup(source)) {
    for (const item of items) {
      if (item.kind === 'header') frames.push(encoder.header(item.header));
      else if (item.kind === 'entries') frames.push(encoder.entries(item.entries));
    }
  }
  // The kept account's key and session come before the account itself: a restore does not depend on the order.
  frames.push(
    encoder.key(keyOf('k-kept', 'kept')),
    encoder.session(sessionOf('s-kept', 'kept')),
    encoder.account({ username: 'kept', password_hash: '$scrypt$ln=1,r=8,p=1$AA$AA', scopes: ['read'], created_at: stamp, created_by: 'admin' }),
    encoder.key(keyOf('k-gone', 'gone')),
    encoder.session(sessionOf('s-gone', 'gone')),
    encoder.trailer().bytes,
  );
  await writeFile(file, Buffer.concat([FIRST_LINE, gzipSync(Buffer.concat(frames))]));
}

test("a backup holding keys and sessions of an account it does not hold restores without them, on every backend, and says so", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-restore-stray-'));
  const targets: [string, StorageOptions, string[]][] = [['LevelDB', { dataDir: join(dir, 'restored') }, ['--data-dir', join(dir, 'restored')]]];
  const databaseUrl = TEST_DATABASE_URL ? await createDatabase(TEST_DATABASE_URL) : undefined;
  if (databaseUrl) targets.push(['PostgreSQL', { dataDir: '', databaseUrl }, ['--database-url', databaseUrl]]);
  try {
    const file = join(dir, 'stray.tmsbackup');
    await withStrayCredentials(await smallBackup(dir), file);
    for (const [backend, spec, flags] of targets) {
      const run = await tms(['restore', file, ...flags, '--no-progress']);
      assert.is(run.code, 0, `${backend}: ${run.stderr}`);
      assert.match(run.stdout, /, 1 accounts, 1 keys, 1 sessions, 0 saved requests, \d+ events, into .* in [\d.]+ s; verified; left out 1 keys and 1 sessions whose accounts are not in the backup\n$/, backend);
      const held = await withStorage(spec, (storage) => storage.accounts.loadAll());
      assert.equal(held.accounts.map((account) => account.username), ['kept'], backend);
      assert.equal(held.keys.map((key) => key.key_id), ['k-kept'], backend);
      assert.equal(held.sessions.map((session) => session.session_id), ['s-kept'], backend);
      assert.equal(await timelinesIn(spec), await timelinesIn({ dataDir: join(dir, 'small') }), `${backend}: the timelines as backed up`);
    }
  } finally {
    if (databaseUrl) await dropDatabase(TEST_DATABASE_URL!, databaseUrl);
    await rm(dir, { recursive: true, force: true });
  }
});

// ------------------------------------------------------------------ the route

test('GET /v1/admin/backup: 401 without a key, 403 for a key without admin, in the error JSON; tms backup says why in one line', async () => {
  const server = await startTestServer();
  const dir = await mkdtemp(join(tmpdir(), 'tms-backup-route-'));
  try {
    const none = await call(server, 'GET', '/v1/admin/backup', { key: null });
    assert.is(none.status, 401);
    assert.equal(none.json, { code: 'unauthenticated', message: 'missing Authorization: Bearer <API_KEY> header' });
    const bad = await call(server, 'GET', '/v1/admin/backup', { key: 'tms_key_not_a_real_one_0000000000' });
    assert.is(bad.status, 401);
    assert.is(bad.json.code, 'unauthenticated');
    const created = await call(server, 'POST', '/v1/keys', { body: { name: 'reader', scopes: ['read', 'write'] } });
    assert.is(created.status, 200, created.text);
    const reader = created.json.key as string;
    const refused = await call(server, 'GET', '/v1/admin/backup', { key: reader });
    assert.is(refused.status, 403);
    assert.equal(refused.json, { code: 'permission_denied', message: 'GET /v1/admin/backup needs the "admin" scope; this credential has: read, write' });
    assert.ok(refused.headers['x-request-id']);
    const wrongMethod = await call(server, 'POST', '/v1/admin/backup', { body: {} });
    assert.is(wrongMethod.status, 405);

    const url = `http://127.0.0.1:${server.port}`;
    const asReader = await tms(['backup', join(dir, 'a.tmsbackup'), '--url', url, '--key', reader]);
    assert.match(refusal(asReader), /^error: the service at .* refused the backup \(403 permission_denied: .*\); give a key with the "admin" scope \(POST \/v1\/keys .* as an admin, or tms keys create .* with the service stopped\)$/);
    const noKey = await tms(['backup', join(dir, 'a.tmsbackup'), '--url', url, '--key', 'tms_key_wrong']);
    assert.match(refusal(noKey), /^error: the service at .* refused the backup \(401 unauthenticated: .*\); give an API key of an admin account with --key or TMS_KEY$/);
    assert.equal(await readdir(dir), [], 'no file, not even a partial one');

    const ok = await tms(['backup', join(dir, 'a.tmsbackup'), '--url', url, '--key', ADMIN_KEY]);
    assert.is(ok.code, 0, ok.stderr);
    assert.equal(await readdir(dir), ['a.tmsbackup']);
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
  try {
    const gone = await tms(['backup', join(dir, 'deeper', 'b.tmsbackup'), '--url', `http://127.0.0.1:${server.port}`, '--key', ADMIN_KEY]);
    assert.match(refusal(gone), /^error: cannot reach tms at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\); start the service, or give its address with --url$/);
    assert.is(await stat(dir).catch(() => undefined), undefined, 'the folders named for the backup are not left behind');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a backup to a path it cannot write, or from a folder that holds no store, says so in one line and leaves nothing', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-backup-unwritable-'));
  try {
    await smallBackup(dir);
    await writeFile(join(dir, 'afile'), 'not a folder');
    const run = await tms(['backup', join(dir, 'afile', 'deeper', 'b.tmsbackup'), '--data-dir', join(dir, 'small'), '--no-progress']);
    assert.match(refusal(run), /^error: cannot write .*afile\/deeper\/b\.tmsbackup \((ENOTDIR|EEXIST)\); give a path in a folder you can write$/);
    assert.equal((await readdir(dir)).sort(), ['afile', 'small', 'small.tmsbackup']);
    for (const args of [['backup', join(dir, 'c.tmsbackup'), '--data-dir', join(dir, 'typo')], ['copy-store', '--from', join(dir, 'typo'), '--to', join(dir, 'copy')]]) {
      assert.match(refusal(await tms(args)), /^error: no tms data folder at .*typo \(give it with --data-dir or TMS_DATA_DIR\)$/, args[0]);
    }
    assert.equal((await readdir(dir)).sort(), ['afile', 'small', 'small.tmsbackup'], 'looking for a store makes no folder');
    const elsewhere = await tms(['copy-store', '--from', join(dir, 'small'), '--to', 'mysql://u:secret@localhost/db']);
    assert.is(refusal(elsewhere), 'error: --to is a URL that is not a postgres:// or postgresql:// one; give a folder or a PostgreSQL URL');
    assert.not.match(elsewhere.stderr, /secret/);
    assert.not.ok(existsSync('mysql:'), 'not taken for a folder');
    const migrate = await tms(['migrate', '--database-url', 'mysql://u:secret@localhost/db']);
    assert.is(refusal(migrate), 'error: --database-url must be a postgres:// or postgresql:// URL');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a backup stream cut short, or not a backup at all, keeps no file and says so in one line', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-backup-cut-'));
  const good = await readFile(await smallBackup(dir));
  // A stand-in for a service that dies half way through its answer, or answers 200 with something else.
  let answer: 'cut' | 'html' = 'cut';
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': answer === 'cut' ? 'application/vnd.tms.backup' : 'text/html' });
    if (answer === 'html') {
      res.end('<html>a proxy login page</html>');
      return;
    }
    res.write(good.subarray(0, Math.floor(good.length / 2)), () => setTimeout(() => res.destroy(), 50));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const file = join(dir, 'out', 'cut.tmsbackup');
    const cut = await tms(['backup', file, '--url', url, '--key', ADMIN_KEY]);
    assert.match(refusal(cut), /^error: the backup streamed from http:\/\/127\.0\.0\.1:\d+ was cut short or damaged \(.*\); nothing was kept: see the service log, then run tms backup again$/);
    answer = 'html';
    const html = await tms(['backup', file, '--url', url, '--key', ADMIN_KEY]);
    assert.match(refusal(html), /^error: the service at http:\/\/127\.0\.0\.1:\d+ answered with something that is not a tms backup; check that --url names the tms service itself \(nothing was kept\)$/);
    assert.is(await stat(join(dir, 'out')).catch(() => undefined), undefined, 'no file, not even a partial one, and not the folder made for it');
  } finally {
    server.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('a backup whose client leaves half way is logged as canceled, in one line without a stack', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tms-backup-left-'));
  // Far more than the sockets' buffers hold, so the server is still writing when the client goes.
  await withStorage({ dataDir }, (storage) => storage.timelines.bulkLoad('primary', generateSyntheticEvents({ events: 30_000, places: 50, seed: 3, maxCauses: 2 })));
  const server = await startServeProcess(dataDir, { args: ['--admin-key', ADMIN_KEY, '--rate-limit', '0'] });
  try {
    const socket = netConnect({ host: '127.0.0.1', port: server.port });
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`GET /v1/admin/backup HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nx-request-id: backup-left\r\n\r\n`);
    const head = await new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1'))));
    assert.match(head, /^HTTP\/1\.1 200 /);
    socket.destroy();

    const linesOf = () => server.logEntries().filter((line) => line['req_id'] === 'backup-left');
    const CUT = 'backup stream cut: its connection closed before the end';
    // The request line is written when the connection closes; the backup learns it at its next write, a moment later.
    await eventually('the request line of the backup, and the line of its cut', () => ['request', CUT].every((msg) => linesOf().some((line) => line['msg'] === msg)));
    const lines = linesOf();
    const cut = lines.find((line) => line['msg'] === CUT);
    assert.ok(cut, JSON.stringify(lines));
    assert.is(cut['err'], undefined, 'no stack: nothing failed in the service');
    assert.not.ok(lines.some((line) => line['msg'] === 'backup stream failed'));
    const request = lines.find((line) => line['msg'] === 'request')!;
    assert.equal({ code: request['code'], status: request['status'], err: request['err'] }, { code: 'canceled', status: 499, err: undefined });
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(`${dataDir}.stdout`, { force: true });
  }
});

if (TEST_DATABASE_URL) {
  const adminUrl = TEST_DATABASE_URL;
  test('a LevelDB backup restores into PostgreSQL: the same timelines, event for event', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tms-backup-across-'));
    const databaseUrl = await createDatabase(adminUrl);
    try {
      const file = await smallBackup(dir);
      const run = await tms(['restore', file, '--database-url', databaseUrl, '--no-progress']);
      assert.is(run.code, 0, run.stderr);
      assert.equal(await timelinesIn({ dataDir: '', databaseUrl }), await timelinesIn({ dataDir: join(dir, 'small') }));
      assert.equal(await stagingSchemas(databaseUrl), [], 'the staging schema is gone once swapped in');
    } finally {
      await dropDatabase(adminUrl, databaseUrl);
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a PostgreSQL restore cut off part way leaves the database as it was; the next restore succeeds and names what the first left', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tms-restore-cut-'));
    const databaseUrl = await createDatabase(adminUrl);
    const relay = await startRelay(databaseUrl);
    try {
      const file = await smallBackup(dir);
      const running = tms(['restore', file, '--database-url', relay.url, '--no-progress']);
      // A committed batch of the load (1 000 entries): the restore is past its start and not yet done.
      await eventually('the staging schema to hold part of the backup', async () => (await stagedEntries(databaseUrl)) >= 1000, 60_000, 50);
      await relay.cut();
      const cut = await running;
      assert.match(refusal(cut), /^error: /);
      const left = await stagingSchemas(databaseUrl);
      assert.is(left.length, 1, 'the staged copy, cut off from its database, stayed behind');
      assert.match(cut.stderr, `drop it yourself: DROP SCHEMA "${left[0]}" CASCADE`);
      assert.ok(await withStorage({ dataDir: '', databaseUrl }, isEmptyStore), 'the target holds nothing of the backup');

      await relay.mend();
      const again = await tms(['restore', file, '--database-url', databaseUrl, '--no-progress']);
      assert.is(again.code, 0, again.stderr);
      assert.match(again.stderr, `schema ${left[0]} is a staging copy that a restore or copy under way writes, or one cut short left behind; once none runs, drop it: DROP SCHEMA "${left[0]}" CASCADE`);
      assert.equal(await timelinesIn({ dataDir: '', databaseUrl }), await timelinesIn({ dataDir: join(dir, 'small') }));
      assert.equal(await stagingSchemas(databaseUrl), left, 'only what the cut restore left, which no run drops for another');
    } finally {
      await relay.close();
      await dropDatabase(adminUrl, databaseUrl);
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a PostgreSQL restore is refused, and the target left as it was, when something writes to the target while it loads', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tms-restore-race-'));
    const databaseUrl = await createDatabase(adminUrl);
    try {
      // Large enough that the restore is still loading when the other writer has taken the table.
      const file = await largeBackup(dir);
      const running = tms(['restore', file, '--database-url', databaseUrl, '--no-progress']);
      // Its table made, the staging store waits for it (to open, load, verify and be copied) while the other writer writes.
      let schema = '';
      await eventually('the staging schema and its table', async () => {
        [schema = ''] = await stagingSchemas(databaseUrl);
        return schema !== '' && (await withClient(databaseUrl, (client) => client.query(`SELECT to_regclass('${schema}.timeline_kv') AS t`))).rows[0].t !== null;
      }, 60_000, 20);
      await withClient(databaseUrl, async (client) => {
        await client.query('BEGIN');
        await client.query(`LOCK TABLE ${schema}.timeline_kv IN ACCESS EXCLUSIVE MODE`);
        await withStorage({ dataDir: '', databaseUrl }, (storage) =>
          storage.timelines.createTimeline({ kind: 'alternate', base_timeline_id: 'primary', description: 'written meanwhile', variation: '', owner: '' }),
        );
        await client.query('COMMIT');
      });
      const raced = await running;
      assert.match(refusal(raced), /^error: the target changed while the store was written beside it \(its clocks moved from .* to .*\); nothing was restored: stop what writes to .* and restore into an empty database$/);
      const timelines = await withStorage({ dataDir: '', databaseUrl }, (storage) => storage.timelines.listTimelines());
      assert.equal(timelines.map((timeline) => timeline.description).sort(), ['The main timeline', 'written meanwhile'].sort(), 'the target as the other writer left it');
      assert.equal(await stagingSchemas(databaseUrl), [], 'the staged copy dropped');
    } finally {
      await dropDatabase(adminUrl, databaseUrl);
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("a PostgreSQL restore keeps the target's tables, their grants with them: a service user with rights on them reads the restored store", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tms-restore-grants-'));
    const databaseUrl = await createDatabase(adminUrl);
    const role = `tms_service_${process.pid}`;
    try {
      // Migrated by the owner; the service's user may only read and write the tables.
      await withStorage({ dataDir: '', databaseUrl }, async () => undefined);
      const serviceUrl = await createRole(databaseUrl, role, 'USAGE', 'SELECT, INSERT, UPDATE, DELETE');
      const file = await smallBackup(dir);
      const run = await tms(['restore', file, '--database-url', databaseUrl, '--no-progress']);
      assert.is(run.code, 0, run.stderr);
      assert.equal(await timelinesIn({ dataDir: '', databaseUrl: serviceUrl }), await timelinesIn({ dataDir: join(dir, 'small') }));
    } finally {
      await dropDatabase(adminUrl, databaseUrl);
      await withClient(adminUrl, (client) => client.query(`DROP ROLE IF EXISTS ${role}`));
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a database user who may not create a schema restores into the target itself, and is told so', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tms-restore-limited-'));
    const databaseUrl = await createDatabase(adminUrl);
    const role = `tms_limited_${process.pid}`;
    try {
      const limitedUrl = await createRole(databaseUrl, role, 'USAGE, CREATE');
      const file = await smallBackup(dir);
      const run = await tms(['restore', file, '--database-url', limitedUrl, '--no-progress']);
      assert.is(run.code, 0, run.stderr);
      assert.match(run.stderr, /this database user may not create a schema, so the store is written into .* itself: if that fails part way, drop and recreate the database before trying again/);
      assert.equal(await timelinesIn({ dataDir: '', databaseUrl }), await timelinesIn({ dataDir: join(dir, 'small') }));
    } finally {
      await dropDatabase(adminUrl, databaseUrl);
      await withClient(adminUrl, (client) => client.query(`DROP ROLE IF EXISTS ${role}`));
      await rm(dir, { recursive: true, force: true });
    }
  });
}

/** Every timeline of a store, with its event count and checksum. */
const timelinesIn = (options: StorageOptions) => withStorage(options, (storage) => checkTimelines(storage.timelines));

/** Entries loaded so far into the staging schemas. */
const stagedEntries = (databaseUrl: string): Promise<number> =>
  withClient(databaseUrl, async (client) => {
    let entries = 0;
    for (const schema of await stagingSchemas(databaseUrl)) {
      const counted = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.timeline_kv`).catch(() => undefined);
      entries += Number(counted?.rows[0]?.n ?? 0);
    }
    return entries;
  });

test('tms backup --data-dir refuses a folder the running service holds, and names --url', async () => {
  const server = await startTestServer();
  try {
    const run = await tms(['backup', join(server.dataDir, '..', `never-${process.pid}.tmsbackup`), '--data-dir', server.dataDir]);
    assert.match(refusal(run), /is in use by a running tms \(its LevelDB lock is held\); back it up through the service instead: tms backup <file> --url/);
  } finally {
    await server.stop();
  }
});

test.run();
