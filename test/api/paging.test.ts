// Every list honours page_size and page_token the same way: opaque tokens, the same limits, and a walk
// over all pages returns every item once, in the list's order.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, startTestServer, type TestServer } from '../support/server.ts';
import { grpcCall } from '../support/grpc.ts';

const MAX_PAGE_SIZE = 20;
const paging = suite<{ server: TestServer }>('paging: accounts, keys, timelines and saved requests');
paging.before(async (ctx) => {
  ctx.server = await startTestServer({ maxPageSize: MAX_PAGE_SIZE, defaultPageSize: 10 });
});
paging.after(async (ctx) => {
  await ctx.server?.stop();
});

/** Walks `path` in pages of `size`; returns the pages' sizes and every item's id. */
async function walk(server: TestServer, path: string, field: string, idOf: (item: any) => string, size: number) { // eslint-disable-line @typescript-eslint/no-explicit-any -- items as read from the wire
  const sizes: number[] = [];
  const ids: string[] = [];
  let token = '';
  for (let guard = 0; guard < 100; guard++) {
    const res = await call(server, 'GET', `${path}?page_size=${size}${token ? `&page_token=${encodeURIComponent(token)}` : ''}`);
    assert.is(res.status, 200, res.text);
    sizes.push(res.json[field].length);
    ids.push(...res.json[field].map(idOf));
    token = res.json.next_page_token;
    if (!token) return { sizes, ids };
  }
  throw new Error(`${path}: more than 100 pages`);
}

paging('accounts: 12 more than admin, pages of 5, every one once, sorted by name', async ({ server }) => {
  for (let i = 0; i < 12; i++) {
    const res = await call(server, 'POST', '/v1/accounts', { body: { username: `pager-${String(i).padStart(2, '0')}`, scopes: ['read'] } });
    assert.is(res.status, 200, res.text);
  }
  const { sizes, ids } = await walk(server, '/v1/accounts', 'accounts', (a) => a.username, 5);
  assert.equal(sizes, [5, 5, 3]);
  assert.equal(ids, [...ids].sort());
  assert.is(new Set(ids).size, 13);
  assert.ok(ids.includes('admin'));
});

paging('keys: 11 more than the admin key, pages of 4, every one once, by creation time (then id)', async ({ server }) => {
  const made: string[] = [];
  for (let i = 0; i < 11; i++) made.push((await call(server, 'POST', '/v1/keys', { body: { name: `pager ${i}`, scopes: ['read'] } })).json.key_id);
  const { sizes, ids } = await walk(server, '/v1/keys', 'keys', (k) => `${k.created_at} ${k.key_id}`, 4);
  assert.equal(sizes, [4, 4, 4]);
  assert.is(new Set(ids).size, 12);
  assert.equal(ids, [...ids].sort(), 'creation order, ties by id');
  assert.ok(made.every((id) => ids.some((entry) => entry.endsWith(id))));
});

paging('timelines: primary and 9 branches, pages of 3', async ({ server }) => {
  for (let i = 0; i < 9; i++) await call(server, 'POST', '/v1/create-timeline', { body: { description: `pager ${i}` } });
  const { sizes, ids } = await walk(server, '/v1/timelines', 'timelines', (t) => t.timeline_id, 3);
  assert.equal(sizes, [3, 3, 3, 1]);
  assert.is(ids[0], 'primary');
  assert.is(new Set(ids).size, 10);
});

paging('saved requests: 7, pages of 2, newest first', async ({ server }) => {
  for (let i = 0; i < 7; i++) await call(server, 'POST', '/v1/console/requests', { body: { name: `pager ${i}`, method: 'GET', path: '/v1/timelines' } });
  const { sizes, ids } = await walk(server, '/v1/console/requests', 'saved_requests', (r) => r.name, 2);
  assert.equal(sizes, [2, 2, 2, 1]);
  assert.equal(ids, ['pager 6', 'pager 5', 'pager 4', 'pager 3', 'pager 2', 'pager 1', 'pager 0']);
});

paging('the same limits and errors on every list: page_size above the maximum, not a number; zero is the default; a foreign page_token', async ({ server }) => {
  for (const path of ['/v1/accounts', '/v1/keys', '/v1/timelines', '/v1/console/requests']) {
    const tooBig = await call(server, 'GET', `${path}?page_size=${MAX_PAGE_SIZE + 1}`);
    assert.is(tooBig.status, 400, path);
    assert.is(tooBig.json.message, `page_size: must be at most ${MAX_PAGE_SIZE}`, path);
    // proto3 cannot tell 0 from a field not given: every face gives the default page.
    const zero = await call(server, 'GET', `${path}?page_size=0`);
    const unset = await call(server, 'GET', path);
    assert.is(zero.status, 200, `${path}: ${zero.text}`);
    const shape = (json: Record<string, unknown>) => Object.entries(json).map(([name, value]) => [name, Array.isArray(value) ? value.length : value]);
    assert.equal(shape(zero.json), shape(unset.json), path);
    const word = await call(server, 'GET', `${path}?page_size=ten`);
    assert.is(word.status, 400, path);
    assert.match(word.json.message, /^page_size: /, path);
    const foreign = await call(server, 'GET', `${path}?page_token=${Buffer.from('nothing-like-this').toString('base64url')}`);
    assert.is(foreign.status, 400, path);
    assert.is(foreign.json.code, 'invalid_argument', path);
    assert.match(foreign.json.message, /^page_token: not a token from a previous page of this list/, `${path}: ${foreign.text}`);
  }
});

paging('gRPC walks pages the same way', async ({ server }) => {
  const ids: string[] = [];
  let token = '';
  do {
    const res = await grpcCall(server.port, 'tms.v1.AccountService.ListAccounts', { page_size: 6, page_token: token });
    assert.is(res.codeName, 'ok', res.message);
    ids.push(...res.json.accounts.map((a: { username: string }) => a.username));
    token = res.json.next_page_token;
  } while (token);
  assert.is(ids.length, 13);
  assert.is(new Set(ids).size, 13);
});

// Last: it removes an account the walks above count.
paging('a walk goes on where its last item was, when that item is gone: a timeline deleted, a key revoked, an account removed', async ({ server }) => {
  const next = async (path: string, field: string, token: string) => (await call(server, 'GET', `${path}?page_size=2&page_token=${encodeURIComponent(token)}`)).json[field];
  const first = await call(server, 'GET', '/v1/timelines?page_size=2');
  const [, last] = first.json.timelines as { timeline_id: string }[];
  const all = (await call(server, 'GET', `/v1/timelines?page_size=${MAX_PAGE_SIZE}`)).json.timelines.map((t: { timeline_id: string }) => t.timeline_id);
  assert.is((await call(server, 'DELETE', `/v1/timeline/${last!.timeline_id}`)).status, 200);
  assert.equal((await next('/v1/timelines', 'timelines', first.json.next_page_token)).map((t: { timeline_id: string }) => t.timeline_id), all.slice(2, 4));

  const keys = await call(server, 'GET', '/v1/keys?page_size=2');
  const allKeys = (await call(server, 'GET', `/v1/keys?page_size=${MAX_PAGE_SIZE}`)).json.keys.map((k: { key_id: string }) => k.key_id);
  assert.is((await call(server, 'DELETE', `/v1/keys/${keys.json.keys[1].key_id}`)).status, 200);
  assert.equal((await next('/v1/keys', 'keys', keys.json.next_page_token)).map((k: { key_id: string }) => k.key_id), allKeys.slice(2, 4));

  const accounts = await call(server, 'GET', '/v1/accounts?page_size=2');
  const allAccounts = (await call(server, 'GET', `/v1/accounts?page_size=${MAX_PAGE_SIZE}`)).json.accounts.map((a: { username: string }) => a.username);
  assert.is((await call(server, 'DELETE', `/v1/accounts/${accounts.json.accounts[1].username}`)).status, 200);
  assert.equal((await next('/v1/accounts', 'accounts', accounts.json.next_page_token)).map((a: { username: string }) => a.username), allAccounts.slice(2, 4));
});

paging.run();
