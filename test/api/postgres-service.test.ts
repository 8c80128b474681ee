// tms on PostgreSQL end to end: every face served from the database, nothing on the local disk, a restart that
// finds everything, and a database that goes away and comes back. Needs TMS_TEST_DATABASE_URL (as `.ci/run`
// sets); the setting's own validation is checked everywhere.
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { call, startTestServer, type TestServer } from '../support/server.ts';
import { grpcCall } from '../support/grpc.ts';
import { TEST_DATABASE_URL } from '../support/backends.ts';
import { createDatabase, dropDatabase, startRelay } from '../support/postgres.ts';
import { eventually } from '../support/eventually.ts';
import { startServeProcess } from '../support/serve-process.ts';

const setting = suite('TMS_DATABASE_URL');

setting('anything but a postgres:// URL is an invalid setting that names the variable', () => {
  for (const value of ['mysql://db/tms', 'postgres://', 'localhost:5432', 'postgres://host/db with space']) {
    try {
      loadConfig({}, { TMS_DATABASE_URL: value });
      assert.unreachable(`accepted ${value}`);
    } catch (error) {
      assert.instance(error, ConfigError);
      assert.match((error as Error).message, /databaseUrl \(TMS_DATABASE_URL\): must be a postgres:\/\/ or postgresql:\/\/ URL/);
    }
  }
  assert.is(loadConfig({}, { TMS_DATABASE_URL: 'postgresql://tms:secret@db.internal:5433/tms' }).databaseUrl, 'postgresql://tms:secret@db.internal:5433/tms');
});

setting.run();

const exists = (path: string) => access(path).then(() => true, () => false);

if (TEST_DATABASE_URL) {
  const adminUrl = TEST_DATABASE_URL;
  const onPostgres = suite<{ databaseUrl: string; dir: string }>('tms on PostgreSQL');
  onPostgres.before.each(async (context) => {
    context.databaseUrl = await createDatabase(adminUrl);
    context.dir = await mkdtemp(join(tmpdir(), 'tms-pg-service-'));
  });
  onPostgres.after.each(async (context) => {
    await dropDatabase(adminUrl, context.databaseUrl);
    await rm(context.dir, { recursive: true, force: true });
  });

  onPostgres('every face serves from the database, nothing is written to local disk, and a restart finds it all', async ({ databaseUrl, dir }) => {
    const dataDir = join(dir, 'never-made');
    let server: TestServer = await startTestServer({ databaseUrl, dataDir });
    let session: string;
    let timelineId: string;
    let primaryCount: number;
    try {
      const found = await call(server, 'GET', '/v1/search-events?location=paris&page_size=3');
      assert.is(found.status, 200, found.text);
      assert.is(found.json.events.length, 3, 'the catalogue was loaded into primary');
      const manipulated = await call(server, 'POST', '/v1/manipulate-event', {
        body: { event_id: 'storming-of-the-bastille', new_outcome: { description: 'The garrison surrenders peacefully.', changes: [{ action: 'negotiate', time: '1789-07-14T10:00:00Z' }] } },
      });
      assert.is(manipulated.status, 200, manipulated.text);
      const created = await call(server, 'POST', '/v1/create-timeline', { body: { base_timeline_id: 'primary', description: 'kept in PostgreSQL' } });
      assert.is(created.status, 200, created.text);
      timelineId = created.json.timeline_id;
      const listed = await grpcCall(server.port, 'tms.v1.TimelineService.ListTimelines', {});
      assert.is(listed.codeName, 'ok', listed.message);
      assert.ok(listed.json.timelines.some((t: { timeline_id: string }) => t.timeline_id === timelineId), 'gRPC sees the REST write');
      const saved = await call(server, 'POST', '/v1/console/requests', { body: { name: 'Paris', method: 'GET', path: '/v1/search-events?location=Paris' } });
      assert.is(saved.status, 200, saved.text);
      const login = await call(server, 'POST', '/v1/login', { key: null, body: { username: 'admin', password: server.app.bootstrap!.password } });
      assert.is(login.status, 200, login.text);
      session = login.json.token;
      primaryCount = (await call(server, 'GET', '/timeline/primary')).json.event_count;
    } finally {
      await server.stop();
    }
    assert.not.ok(await exists(dataDir), 'no data folder was made');

    server = await startTestServer({ databaseUrl, dataDir });
    try {
      assert.is(server.app.bootstrap, undefined, 'the admin is not made again');
      const primary = await call(server, 'GET', '/timeline/primary', { key: session });
      assert.is(primary.status, 200, 'the session made before the restart still works');
      assert.is(primary.json.event_count, primaryCount, 'the catalogue was not loaded twice');
      assert.is((await call(server, 'GET', `/timeline/${timelineId}`)).status, 200);
      const bastille = await call(server, 'GET', '/v1/search-events?location=paris&time_range=1789-07-14T00:00:00Z/P1D');
      assert.ok(bastille.json.events.some((e: { supersedes?: string }) => e.supersedes === 'storming-of-the-bastille'), bastille.text);
      const requests = await call(server, 'GET', '/v1/console/requests');
      assert.equal(requests.json.saved_requests.map((r: { name: string }) => r.name), ['Paris']);
    } finally {
      await server.stop();
    }
    assert.not.ok(await exists(dataDir), 'still no data folder');
  });

  onPostgres('the database going away: /readyz and every request answer 503 at once, and all is well again when it returns, without a restart', async ({ databaseUrl, dir }) => {
    const relay = await startRelay(databaseUrl);
    const server = await startTestServer({ databaseUrl: relay.url, dataDir: join(dir, 'unused') });
    const ready = async () => (await call(server, 'GET', '/readyz', { key: null })).status;
    try {
      assert.is(await ready(), 200);
      await relay.cut();
      const started = Date.now();
      const write = await call(server, 'POST', '/v1/create-timeline', { body: { base_timeline_id: 'primary', description: 'while down' } });
      assert.is(write.status, 503, write.text);
      assert.is(write.json.code, 'unavailable');
      assert.match(write.json.message, 'the database is unavailable; try again shortly');
      assert.is(write.headers['retry-after'], '1');
      const search = await call(server, 'GET', '/v1/search-events?location=lyon&page_size=7');
      assert.is(search.status, 503, search.text);
      const grpc = await grpcCall(server.port, 'tms.v1.TimelineService.CreateTimeline', { base_timeline_id: 'primary', description: 'while down' });
      assert.is(grpc.codeName, 'unavailable');
      assert.ok(Date.now() - started < 15_000, 'answers come at once, not after a hang');
      await eventually('/readyz says 503', async () => (await ready()) === 503, 10_000, 100);

      await relay.mend();
      await eventually('/readyz says 200 again', async () => (await ready()) === 200, 10_000, 100);
      const after = await call(server, 'POST', '/v1/create-timeline', { body: { base_timeline_id: 'primary', description: 'after' } });
      assert.is(after.status, 200, after.text);
      const timelines = await call(server, 'GET', '/timelines');
      assert.equal(timelines.json.timelines.map((t: { description: string }) => t.description).filter((d: string) => d !== 'The main timeline'), ['after'], 'nothing half-written while down');
    } finally {
      await server.stop();
      await relay.close();
    }
  });

  onPostgres('a database that stops answering: REST and Connect answer 504 at the request limit, not when it answers again', async ({ databaseUrl, dir }) => {
    const relay = await startRelay(databaseUrl);
    const server = await startTestServer({ databaseUrl: relay.url, dataDir: join(dir, 'unused'), requestTimeoutMs: 1_500 });
    try {
      assert.is((await call(server, 'GET', '/v1/timelines')).status, 200);
      relay.freeze();
      const started = Date.now();
      const answered = Promise.all([call(server, 'GET', '/v1/timelines'), call(server, 'POST', '/tms.v1.TimelineService/ListTimelines', { body: {} })]);
      let gaveUp: NodeJS.Timeout | undefined;
      const hung = new Promise<never>((_resolve, reject) => (gaveUp = setTimeout(() => reject(new Error('no answer within 10 s: the request waits for the database')), 10_000)));
      const [rest, connect] = await Promise.race([answered, hung]).finally(() => clearTimeout(gaveUp));
      const took = Date.now() - started;
      assert.is(rest.status, 504, rest.text);
      assert.is(rest.json.code, 'deadline_exceeded');
      assert.match(rest.json.message, 'not finished within 1500 ms (TMS_REQUEST_TIMEOUT_MS)');
      assert.is(connect.json.code, 'deadline_exceeded', connect.text);
      assert.ok(took < 5_000, `answered at the limit, not when the database answered again (${took} ms)`);
      relay.thaw();
      await eventually('answers again once the database does', async () => (await call(server, 'GET', '/v1/timelines')).status === 200, 20_000, 200);
    } finally {
      relay.thaw();
      await server.stop();
      await relay.close();
    }
  });

  onPostgres("an outage is said when it begins and ends, and its requests are warnings that name the store's error, not the server's faults", async ({ databaseUrl, dir }) => {
    const relay = await startRelay(databaseUrl);
    const key = 'tms_outage_log_key_0000000000000000';
    const server = await startServeProcess(join(dir, 'outage-log'), { flags: false, args: ['--port', '0', '--database-url', relay.url], env: { TMS_ADMIN_KEY: key } });
    try {
      await relay.cut();
      const answer = await fetch(`http://127.0.0.1:${server.port}/v1/timelines`, { headers: { authorization: `Bearer ${key}` } });
      assert.is(answer.status, 503);
      const requestLine = () => server.logEntries().find((entry) => entry['msg'] === 'request' && entry['path'] === '/v1/timelines');
      await eventually('the request is logged', () => requestLine() !== undefined, 5_000, 50);
      const line = requestLine()!;
      assert.is(line['code'], 'unavailable');
      assert.is(line['level'], 40, 'a warning');
      assert.is((line['outage'] as { type: string }).type, 'StoreUnavailableError');
      assert.match((line['outage'] as { message: string }).message, /^the database is unavailable \(/);
      assert.is(line['err'], undefined, 'no error: the server did nothing wrong');

      const said = (msg: string) => server.logEntries().filter((entry) => entry['msg'] === msg);
      await eventually('the outage is said once, when it begins', () => said('the store: a problem began').length === 1, 10_000, 50);
      assert.match(said('the store: a problem began')[0]!['problem'] as string, /^the database is unreachable: /);
      await relay.mend();
      await eventually('and once when it is over', () => said('the store: the problem is over').length === 1, 10_000, 50);
      assert.is(said('the store: a problem began').length, 1);
    } finally {
      await server.stop();
      await relay.close();
    }
  });

  onPostgres.run();
}
