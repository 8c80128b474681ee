// tms backup / tms restore (issue 15 item 6), the round trip: an online snapshot of a running service at 10^5
// events while writes go on, restored into an empty store with everything the snapshot held and every write
// acknowledged before it began. On LevelDB always, on PostgreSQL too when TMS_TEST_DATABASE_URL is set.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateSyntheticEvents } from '../../src/synthetic/generator.ts';
import { verifyBackup } from '../../src/store/backup-format.ts';
import { ADMIN_KEY, call, startTestServer, type TestServer } from '../support/server.ts';
import { TEST_DATABASE_URL } from '../support/backends.ts';
import { createDatabase, dropDatabase } from '../support/postgres.ts';
import { refusal, tms, withStorage } from '../support/cli.ts';
import type { StorageOptions } from '../../src/store/storage.ts';

const EVENTS = 100_000;

/** 10^5 synthetic events in primary, bulk-loaded before the service starts (as `tms generate` does). */
async function loadEvents(options: StorageOptions): Promise<void> {
  await withStorage(options, (storage) => storage.timelines.bulkLoad('primary', generateSyntheticEvents({ events: EVENTS, places: 1000, seed: 7, maxCauses: 2 })).then(() => undefined));
}

interface Acknowledged {
  newEventId: string;
  /** When the request was sent, and when its answer came. */
  sent: number;
  at: number;
}

/**
 * Round trip through a running service: branch, anchor, account, key and saved request made over the API;
 * manipulations on the branch running back to back (two at a time) before, during and after `tms backup`;
 * then `tms restore` into `restoreArgs`' empty target, and the restored store checked.
 */
async function roundTrip(server: TestServer, backupFile: string, restoreArgs: string[], restored: StorageOptions, source: StorageOptions): Promise<void> {
  const admin = { key: ADMIN_KEY };
  const branch = await call(server, 'POST', '/v1/create-timeline', { ...admin, body: { base_timeline_id: 'primary', description: 'under write load' } });
  assert.is(branch.status, 200, branch.text);
  const timelineId = branch.json.timeline_id as string;
  const anchor = await call(server, 'POST', '/v1/set-anchor', { ...admin, body: { timestamp: '2025-01-01T00:00:00.000001Z', description: 'kept', accuracy: 'nanosecond' } });
  assert.is(anchor.status, 200, anchor.text);
  const account = await call(server, 'POST', '/v1/accounts', { ...admin, body: { username: 'ada', password: 'ada-password-123', scopes: ['read', 'write'] } });
  assert.is(account.status, 200, account.text);
  const key = await call(server, 'POST', '/v1/keys', { ...admin, body: { name: 'nightly', scopes: ['read'] } });
  assert.is(key.status, 200, key.text);
  const session = await call(server, 'POST', '/v1/login', { key: null, body: { username: 'ada', password: 'ada-password-123' } });
  assert.is(session.status, 200, session.text);
  const saved = await call(server, 'POST', '/v1/console/requests', { ...admin, body: { name: 'Place 7', method: 'GET', path: '/v1/search-events?location=Place%207' } });
  assert.is(saved.status, 200, saved.text);

  // The write load: each synthetic event changed once on the branch, two requests in flight at a time.
  const acknowledged: Acknowledged[] = [];
  let next = 0;
  let stop = false;
  const writer = async () => {
    while (!stop) {
      const eventId = `syn-${String(next++).padStart(9, '0')}`;
      const sent = performance.now();
      const changed = await call(server, 'POST', '/v1/manipulate-event', {
        ...admin,
        body: { event_id: eventId, timeline_id: timelineId, new_outcome: { description: `changed ${eventId}`, changes: [{ action: 'delay', time: '2000-01-01T00:00:00Z' }] } },
      });
      assert.is(changed.status, 200, changed.text);
      acknowledged.push({ newEventId: changed.json.new_event_id as string, sent, at: performance.now() });
    }
  };
  const writers = [writer(), writer()];
  try {
    while (acknowledged.length < 20) await new Promise((resolve) => setTimeout(resolve, 20));
    const began = performance.now();
    const backup = await tms(['backup', backupFile, '--url', `http://127.0.0.1:${server.port}`], { TMS_KEY: ADMIN_KEY });
    assert.is(backup.code, 0, backup.stderr);
    assert.match(backup.stderr, /backup \[.*\] 100% \| \d+\/\d+ entries/);
    const during = acknowledged.filter((a) => a.at > began).length;
    assert.ok(during > 0, 'writes went on during the backup');
    const ended = performance.now();
    while (acknowledged.filter((a) => a.sent > ended).length < 5) await new Promise((resolve) => setTimeout(resolve, 20));
    stop = true;
    await Promise.all(writers);
    const before = acknowledged.filter((a) => a.at < began);
    const after = acknowledged.filter((a) => a.sent > ended);

    const restore = await tms(['restore', backupFile, ...restoreArgs]);
    assert.is(restore.code, 0, restore.stderr);
    assert.match(restore.stdout, /^restored 2 timelines \(\d+ entries\), 2 accounts, 2 keys, 1 sessions, 1 saved requests, \d+ events, into .* in [\d.]+ s; verified\n$/);

    await withStorage(restored, async (storage) => {
      const timelines = await storage.timelines.listTimelines();
      assert.equal(timelines.map((t) => t.timeline_id).sort(), ['primary', timelineId].sort());
      assert.is(timelines.find((t) => t.timeline_id === 'primary')!.event_count, EVENTS);
      const missing = [];
      for (const write of before) if (!(await storage.timelines.getEvent(timelineId, write.newEventId))) missing.push(write.newEventId);
      assert.equal(missing, [], 'every write acknowledged before the backup began');
      for (const write of after) assert.is(await storage.timelines.getEvent(timelineId, write.newEventId), undefined, 'a write sent after the backup ended');
      assert.ok(await storage.timelines.getAnchor(anchor.json.anchor_id as string), 'the anchor');
      const accounts = await storage.accounts.loadAll();
      assert.equal(accounts.accounts.map((a) => a.username).sort(), ['ada', 'admin']);
      assert.ok(accounts.keys.some((k) => k.name === 'nightly'), 'the key');
      assert.equal(accounts.sessions.map((record) => record.account), ['ada'], 'the session');
      const requests = [];
      for await (const record of storage.savedRequests.all()) requests.push(record.name);
      assert.equal(requests, ['Place 7']);
    });
  } finally {
    stop = true;
    await Promise.allSettled(writers);
  }
  // primary took no writes: restored, its events are the source's (a sample; the command compared every
  // timeline's entries with the backup's checksums already).
  await server.stop();
  const sample = Array.from({ length: 50 }, (_, i) => `syn-${String(i * 1999).padStart(9, '0')}`);
  const eventsOf = (options: StorageOptions) => withStorage(options, (storage) => Promise.all(sample.map((id) => storage.timelines.getEvent('primary', id))));
  const restoredEvents = await eventsOf(restored);
  assert.ok(restoredEvents.every(Boolean));
  assert.equal(restoredEvents, await eventsOf(source));
}

test(`LevelDB: tms backup of a running service at ${EVENTS} events under write load, restored into a new folder`, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tms-backup-'));
  let server: TestServer | undefined;
  try {
    const source = { dataDir: join(dir, 'data') };
    await loadEvents(source);
    server = await startTestServer({ dataDir: source.dataDir, seedCatalogue: false });
    const restored = { dataDir: join(dir, 'restored') };
    await roundTrip(server, join(dir, 'store.tmsbackup'), ['--data-dir', restored.dataDir], restored, source);
    server = undefined;
  } finally {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

if (TEST_DATABASE_URL) {
  const adminUrl = TEST_DATABASE_URL;
  test(`PostgreSQL: tms backup of a running service at ${EVENTS} events under write load, restored into an empty database`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tms-backup-pg-'));
    const sourceUrl = await createDatabase(adminUrl);
    const targetUrl = await createDatabase(adminUrl);
    let server: TestServer | undefined;
    try {
      const source = { dataDir: '', databaseUrl: sourceUrl };
      await loadEvents(source);
      server = await startTestServer({ databaseUrl: sourceUrl, seedCatalogue: false });
      const restored = { dataDir: '', databaseUrl: targetUrl };
      await roundTrip(server, join(dir, 'store.tmsbackup'), ['--database-url', targetUrl], restored, source);
      server = undefined;
      // Read directly from the database, the restored store makes the same backup (the same counts and checksums).
      const direct = await tms(['backup', join(dir, 'direct.tmsbackup'), '--database-url', targetUrl, '--no-progress']);
      assert.is(direct.code, 0, direct.stderr);
      const [fromService, fromDatabase] = await Promise.all([verifyBackup(join(dir, 'store.tmsbackup')), verifyBackup(join(dir, 'direct.tmsbackup'))]);
      assert.equal(fromDatabase.trailer.timelines, fromService.trailer.timelines);
      assert.is(fromDatabase.header.source, 'postgresql');
      // The database now holds a store: a second restore into it is refused, and changes nothing.
      const again = await tms(['restore', join(dir, 'store.tmsbackup'), '--database-url', targetUrl, '--no-progress']);
      assert.match(refusal(again), /^error: the database .* is not empty; restore into a new, empty database \(nothing was written\)$/);
    } finally {
      await server?.stop();
      await dropDatabase(adminUrl, sourceUrl);
      await dropDatabase(adminUrl, targetUrl);
      await rm(dir, { recursive: true, force: true });
    }
  });
}

test.run();
