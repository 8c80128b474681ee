import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN_KEY, call, type TestServer } from '../support/server.ts';
import { createKey, expectOk, startSeededServer } from '../support/accounts.ts';

const authorship = suite<{ server: TestServer; writerKey: string; readerKey: string }>('who wrote an event: shown to admins and the author only');
authorship.before(async (ctx) => {
  ctx.server = await startSeededServer([
    { username: 'wanda', password: 'wanda writes things', scopes: ['read', 'write'] },
    { username: 'reed', password: 'reed only reads', scopes: ['read'] },
  ]);
  ctx.writerKey = (await createKey(ctx.server, ADMIN_KEY, { name: 'w', scopes: ['read', 'write'], account: 'wanda' })).key;
  ctx.readerKey = (await createKey(ctx.server, ADMIN_KEY, { name: 'r', scopes: ['read'], account: 'reed' })).key;
});
authorship.after(async (ctx) => {
  await ctx.server.stop();
});

const BASTILLE = { location: 'Paris, France', time_range: '1789-01-01T00:00:00Z/1799-12-31T23:59:59Z' };
const eventsAs = async (server: TestServer, key: string, timelineId = 'primary') =>
  expectOk('search', await call(server, 'GET', '/v1/search-events', { key, body: { ...BASTILLE, timeline_id: timelineId } })).json.events as Record<string, string>[];

authorship('an admin change on primary: the admin sees the author, a read key sees only when', async ({ server, readerKey }) => {
  const changed = expectOk(
    'manipulate',
    await call(server, 'POST', '/v1/manipulate-event', {
      body: { event_id: 'storming-of-the-bastille', new_outcome: { description: 'A quiet day.', changes: [{ action: 'negotiate', time: '1789-07-14T10:00:00Z' }] } },
    }),
  ).json;
  const asAdmin = (await eventsAs(server, ADMIN_KEY)).find((event) => event['event_id'] === changed.new_event_id)!;
  const asReader = (await eventsAs(server, readerKey)).find((event) => event['event_id'] === changed.new_event_id)!;
  assert.is(asAdmin['created_by'], 'admin');
  assert.is(asReader['created_by'], undefined, 'account names are not shown to others');
  assert.is(asReader['created_at'], asAdmin['created_at'], 'the time is');
  assert.is(asReader['description'], 'A quiet day.');
});

authorship('an author sees their own name on their own branch', async ({ server, writerKey }) => {
  const branch = expectOk('branch', await call(server, 'POST', '/v1/create-timeline', { key: writerKey, body: { base_timeline_id: 'primary', description: 'mine' } })).json
    .timeline_id as string;
  const target = (await eventsAs(server, writerKey, branch)).find((event) => !event['created_at']);
  const changed = expectOk(
    'manipulate',
    await call(server, 'POST', '/v1/manipulate-event', {
      key: writerKey,
      body: { event_id: target!['event_id'], new_outcome: { description: 'Mine now.', changes: [] }, timeline_id: branch },
    }),
  ).json;
  const mine = (await eventsAs(server, writerKey, branch)).find((event) => event['event_id'] === changed.new_event_id)!;
  assert.is(mine['created_by'], 'wanda');
  const inherited = (await eventsAs(server, writerKey, branch)).find((event) => event['created_at'] && event['event_id'] !== changed.new_event_id);
  assert.ok(inherited, "the admin's earlier change on primary is inherited");
  assert.is(inherited!['created_by'], undefined, 'and shows no name to wanda');
});

authorship.run();
