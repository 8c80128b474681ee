// Two tms nodes on one PostgreSQL database behave as one service: started together on an empty database,
// each sees the other's writes, sessions, revocations and lockouts at once, concurrent writes from both are
// all kept, and a node killed with SIGKILL under write load loses no acknowledged write.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readCatalogue } from '../../src/catalogue/load.ts';
import { ADMIN_KEY, call, startTestServer, type TestServer } from '../support/server.ts';
import { startServeProcess } from '../support/serve-process.ts';
import { TEST_DATABASE_URL } from '../support/backends.ts';
import { createDatabase, dropDatabase } from '../support/postgres.ts';
import { RUN_TYPESCRIPT } from '../../src/typescript/node-options.ts';

interface Nodes {
  databaseUrl: string;
  dir: string;
  a: TestServer;
  b: TestServer;
}

const outcome = (time: string, description = 'Otherwise.') => ({ description, changes: [{ action: 'negotiate', time }] });

if (TEST_DATABASE_URL) {
  const adminUrl = TEST_DATABASE_URL;
  const nodes = suite<Nodes>('two nodes on one database');
  nodes.before.each(async (context) => {
    context.databaseUrl = await createDatabase(adminUrl);
    context.dir = await mkdtemp(join(tmpdir(), 'tms-two-nodes-'));
    // Started together on the empty database: one migrates, one makes the admin, one loads the catalogue.
    const started = await Promise.allSettled([
      startTestServer({ databaseUrl: context.databaseUrl, dataDir: join(context.dir, 'a') }),
      startTestServer({ databaseUrl: context.databaseUrl, dataDir: join(context.dir, 'b') }),
    ]);
    const failed = started.find((outcome) => outcome.status === 'rejected');
    if (failed) {
      await Promise.all(started.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.stop() : undefined)));
      // uvu does not print what a hook threw: say it here.
      console.error('a node failed to start:', failed.reason);
      throw failed.reason;
    }
    [context.a, context.b] = started.map((outcome) => (outcome as PromiseFulfilledResult<TestServer>).value) as [TestServer, TestServer];
  });
  nodes.after.each(async ({ a, b, databaseUrl, dir }) => {
    await Promise.all([a?.stop(), b?.stop()]);
    await dropDatabase(adminUrl, databaseUrl);
    await rm(dir, { recursive: true, force: true });
  });

  nodes('both start on an empty database: one admin, the catalogue loaded once, the same primary on both', async ({ a, b }) => {
    assert.is([a.app.bootstrap, b.app.bootstrap].filter(Boolean).length, 1, 'exactly one node made the admin');
    for (const node of [a, b]) {
      const primary = await call(node, 'GET', '/timeline/primary');
      assert.is(primary.status, 200, primary.text);
      assert.is(primary.json.timeline.event_count, readCatalogue().length);
      assert.is(primary.json.timeline.revision, 0);
    }
  });

  nodes('a write on one node is read at once on the other, over every route', async ({ a, b }) => {
    const created = await call(a, 'POST', '/v1/create-timeline', { body: { base_timeline_id: 'primary', description: 'shared experiment' } });
    assert.is(created.status, 200, created.text);
    const id = created.json.timeline_id as string;
    const onB = await call(b, 'GET', `/timeline/${id}`);
    assert.is(onB.status, 200, onB.text);
    const manipulated = await call(b, 'POST', '/v1/manipulate-event', {
      body: { event_id: 'storming-of-the-bastille', timeline_id: id, new_outcome: outcome('1789-07-14T10:00:00Z', 'A quiet day.') },
    });
    assert.is(manipulated.status, 200, manipulated.text);
    const newId = manipulated.json.event.event_id;
    const found = await call(a, 'GET', `/v1/search-events?timeline_id=${id}&location=paris&time_range=1789-07-14T00:00:00Z/1789-07-14T23:59:59Z`);
    assert.is(found.status, 200, found.text);
    assert.ok(found.json.events.some((e: { event_id: string }) => e.event_id === newId), 'node A finds the event node B created');
    const deleted = await call(a, 'DELETE', `/timeline/${id}`);
    assert.is(deleted.status, 200, deleted.text);
    const gone = await call(b, 'GET', `/timeline/${id}`);
    assert.is(gone.status, 404, gone.text);
  });

  nodes('a login, a logout, a revoked key and a lockout count on both nodes at once', async ({ a, b }) => {
    const made = await call(a, 'POST', '/v1/accounts', { body: { username: 'ria', password: 'correct horse battery', scopes: ['read', 'write'] } });
    assert.is(made.status, 200, made.text);
    const login = await call(a, 'POST', '/v1/login', { key: null, body: { username: 'ria', password: 'correct horse battery' } });
    assert.is(login.status, 200, login.text);
    const session = login.json.token as string;
    assert.is((await call(b, 'GET', '/timeline/primary', { key: session })).status, 200, 'the session made on A works on B');
    assert.is((await call(b, 'POST', '/v1/logout', { key: session })).status, 200);
    assert.is((await call(a, 'GET', '/timeline/primary', { key: session })).status, 401, 'logged out on B, refused on A');

    const key = await call(b, 'POST', '/v1/keys', { body: { account: 'ria', name: 'ci', scopes: ['read'] } });
    assert.is(key.status, 200, key.text);
    assert.is((await call(a, 'GET', '/timeline/primary', { key: key.json.key })).status, 200, 'the key made on B works on A');
    assert.is((await call(a, 'DELETE', `/v1/keys/${key.json.key_id}`)).status, 200);
    assert.is((await call(b, 'GET', '/timeline/primary', { key: key.json.key })).status, 401, 'revoked on A, refused on B');

    let status = 0;
    for (let attempt = 0; attempt < 20 && status !== 429; attempt++) {
      status = (await call(a, 'POST', '/v1/login', { key: null, body: { username: 'ria', password: `wrong ${attempt}` } })).status;
    }
    assert.is(status, 429, 'node A locked the account');
    const onB = await call(b, 'POST', '/v1/login', { key: null, body: { username: 'ria', password: 'correct horse battery' } });
    assert.is(onB.status, 429, `node B refuses it too: ${onB.text}`);
    assert.match(onB.json.message, /too many failed logins/);
  });

  nodes('tms users and tms keys work on the database while the nodes serve it, and both nodes see the change', async ({ a, b, databaseUrl }) => {
    const tms = (...args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(process.execPath, [...RUN_TYPESCRIPT, join('src', 'cli', 'main.ts'), ...args], { env: { ...process.env, TMS_DATABASE_URL: databaseUrl }, timeout: 60_000 }, (error, stdout, stderr) =>
          resolve({ code: error ? 1 : 0, stdout, stderr }),
        );
      });
    const added = await tms('users', 'create', 'omar', '--scopes', 'read', '--password', 'a long enough password');
    assert.is(added.code, 0, added.stderr);
    for (const node of [a, b]) {
      const login = await call(node, 'POST', '/v1/login', { key: null, body: { username: 'omar', password: 'a long enough password' } });
      assert.is(login.status, 200, login.text);
    }
    const listed = await tms('users', 'list', '--json');
    assert.is(listed.code, 0, listed.stderr);
    assert.ok((JSON.parse(listed.stdout) as { username: string }[]).some((u) => u.username === 'omar'));
    const removed = await tms('users', 'remove', 'omar');
    assert.is(removed.code, 0, removed.stderr);
    const refused = await call(b, 'POST', '/v1/login', { key: null, body: { username: 'omar', password: 'a long enough password' } });
    assert.is(refused.status, 401, refused.text);
  });

  nodes('writes from both nodes at once to one timeline are all kept', async ({ a, b }) => {
    const created = await call(a, 'POST', '/v1/create-timeline', { body: { base_timeline_id: 'primary', description: 'busy' } });
    const id = created.json.timeline_id as string;
    const page = await call(a, 'GET', `/v1/search-events?timeline_id=${id}&page_size=40`);
    const events = page.json.events as { event_id: string; time: string }[];
    assert.is(events.length, 40);
    const manipulate = (node: TestServer, event: { event_id: string; time: string }) =>
      call(node, 'POST', '/v1/manipulate-event', { body: { event_id: event.event_id, timeline_id: id, new_outcome: outcome(event.time) } });
    const answers = await Promise.all(events.map((event, i) => manipulate(i % 2 ? a : b, event)));
    assert.equal(answers.map((r) => r.status), events.map(() => 200), answers.find((r) => r.status !== 200)?.text);
    for (const node of [a, b]) {
      const timeline = await call(node, 'GET', `/timeline/${id}`);
      assert.is(timeline.json.timeline.revision, 40, 'each manipulation is one revision, on both nodes');
      for (const answer of answers.slice(0, 5)) {
        const event = await call(node, 'GET', `/v1/search-events?timeline_id=${id}&time_range=${answer.json.event.time}/${answer.json.event.time}&page_size=50`);
        assert.ok(event.json.events.some((e: { event_id: string }) => e.event_id === answer.json.event.event_id));
      }
    }
  });

  nodes('a node killed with SIGKILL under write load loses no acknowledged write; the other serves on', async ({ a, databaseUrl, dir }) => {
    const killed = await startServeProcess(join(dir, 'killed'), {
      flags: false,
      args: ['--port', '0'],
      env: { TMS_DATABASE_URL: databaseUrl, TMS_ADMIN_KEY: ADMIN_KEY, TMS_RATE_LIMIT: '0' },
    });
    const victim = { port: killed.port };
    const created = await call(victim, 'POST', '/v1/create-timeline', { body: { base_timeline_id: 'primary', description: 'under load' } });
    const id = created.json.timeline_id as string;
    const events = (await call(a, 'GET', `/v1/search-events?timeline_id=${id}&page_size=200`)).json.events as { event_id: string; time: string }[];
    const untouched = events.pop()!;
    const acknowledged: string[] = [];
    const refused: string[] = [];
    let next = 0;
    let stop = false;
    const writer = async (node: { port: number }) => {
      while (!stop && next < events.length) {
        const event = events[next++]!;
        const answer = await call(node, 'POST', '/v1/manipulate-event', { body: { event_id: event.event_id, timeline_id: id, new_outcome: outcome(event.time) } }).catch(
          (error: Error) => ({ status: 0, text: error.message, json: undefined }),
        );
        if (answer.status === 200) acknowledged.push(answer.json.event.event_id);
        else refused.push(`${answer.status} ${answer.text}`);
      }
    };
    const load = Promise.all([writer(victim), writer(victim), writer(a)]);
    const givesUpAt = Date.now() + 30_000;
    while (acknowledged.length < 20 && Date.now() < givesUpAt) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.ok(acknowledged.length >= 20, `20 writes acknowledged under load within 30 s (got ${acknowledged.length}; refused: ${refused.slice(0, 3).join(' | ')})`);
    await killed.stop('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 200));
    stop = true;
    await load;
    const timeline = await call(a, 'GET', `/timeline/${id}`);
    assert.ok(timeline.json.timeline.revision >= acknowledged.length, `revision ${timeline.json.timeline.revision} counts every acknowledged write (${acknowledged.length})`);
    const all = await call(a, 'GET', `/v1/search-events?timeline_id=${id}&page_size=1000`);
    const ids = new Set((all.json.events as { event_id: string }[]).map((e) => e.event_id));
    const lost = acknowledged.filter((eventId) => !ids.has(eventId));
    assert.equal(lost, [], 'every acknowledged write is on the surviving node');
    const after = await call(a, 'POST', '/v1/manipulate-event', { body: { event_id: untouched.event_id, timeline_id: id, new_outcome: outcome(untouched.time) } });
    assert.is(after.status, 200, `the surviving node takes a new write: ${after.text}`);
  });

  nodes.run();
}
