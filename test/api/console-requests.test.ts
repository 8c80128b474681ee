// Saved console requests over REST: every bad input is refused by name and stores nothing, credential
// headers are dropped, pages walk the whole list, and nobody but the owner can reach a request except
// through its live share token.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, startTestServer, type TestServer } from '../support/server.ts';

const ALICE = { username: 'alice', password: 'alice has a long password' };
const BOB = { username: 'bob', password: 'bob has a long password' };

type Ctx = { server: TestServer; alice: string; bob: string };
const saved = suite<Ctx>('saved console requests over REST');

async function logIn(server: TestServer, who: { username: string; password: string }): Promise<string> {
  const created = await call(server, 'POST', '/v1/accounts', { body: { ...who, scopes: ['read'] } });
  assert.is(created.status, 200, created.text);
  const login = await call(server, 'POST', '/v1/login', { key: null, body: who });
  assert.is(login.status, 200, login.text);
  return login.json.token;
}

saved.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.alice = await logIn(ctx.server, ALICE);
  ctx.bob = await logIn(ctx.server, BOB);
});
saved.after(async (ctx) => {
  await ctx.server?.stop();
});

const good = { name: 'Rome', method: 'GET', path: '/v1/search-events?location=Rome', headers: { accept: 'application/json' }, body: '' };
const save = (ctx: Ctx, body: unknown, key = ctx.alice) => call(ctx.server, 'POST', '/v1/console/requests', { key, body });
const count = async (ctx: Ctx, key: string) => {
  let total = 0;
  let token = '';
  do {
    const page = await call(ctx.server, 'GET', `/v1/console/requests?page_size=100${token ? `&page_token=${token}` : ''}`, { key });
    total += page.json.saved_requests.length;
    token = page.json.next_page_token;
  } while (token);
  return total;
};

saved('bad input: 400 invalid_argument naming the field, with a FieldViolation, and nothing stored', async (ctx) => {
  const before = await count(ctx, ctx.alice);
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ['missing name', { ...good, name: undefined }, 'name', /is required/],
    ['blank name', { ...good, name: '   ' }, 'name', /is required/],
    ['name too long', { ...good, name: 'x'.repeat(201) }, 'name', /at most 200 characters/],
    ['name of the wrong type', { ...good, name: 7 }, 'name', /expected string, got number/],
    ['missing method', { ...good, method: undefined }, 'method', /is required/],
    ['unknown method', { ...good, method: 'FROB' }, 'method', /must be one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS/],
    ['a method browsers refuse', { ...good, method: 'TRACE' }, 'method', /must be one of/],
    ['path without a leading /', { ...good, path: 'v1/timelines' }, 'path', /starting with "\/"/],
    ['absolute URL', { ...good, path: 'https://evil.example/steal' }, 'path', /no scheme or host/],
    ['protocol-relative URL', { ...good, path: '//evil.example/steal' }, 'path', /no scheme or host/],
    ['backslash, which a browser reads as a slash', { ...good, path: '/\\evil.example/steal' }, 'path', /without backslashes or control characters/],
    ['tab, which a browser drops', { ...good, path: '/\t/evil.example/steal' }, 'path', /without backslashes or control characters/],
    ['line break', { ...good, path: '/v1/time\nlines' }, 'path', /without backslashes or control characters/],
    ['path too long', { ...good, path: `/${'x'.repeat(2000)}` }, 'path', /at most 2000 characters/],
    ['too many headers', { ...good, headers: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`x-h${i}`, 'v'])) }, 'headers', /at most 50 headers/],
    ['bad header name', { ...good, headers: { 'bad header': 'v' } }, 'headers.bad header', /not a valid header name/],
    ['header value of the wrong type', { ...good, headers: { accept: 5 } }, 'headers.accept', /expected string, got number/],
    ['line break in a header value', { ...good, headers: { 'x-note': 'a\nb' } }, 'headers.x-note', /no line breaks or other control characters/],
    ['NUL in a header value', { ...good, headers: { 'x-note': '\u0000nul' } }, 'headers.x-note', /no line breaks or other control characters/],
    ['a character no header can carry', { ...good, headers: { 'x-price': '5 €' } }, 'headers.x-price', /not a valid header value/],
    ['one header given twice, in two cases', { ...good, headers: { 'X-A': '1', 'x-a': '2' } }, 'headers.x-a', /the same header as "X-A"/],
    ['body over 64 KiB', { ...good, body: 'x'.repeat(64 * 1024 + 1) }, 'body', /at most 65536 bytes/],
    ['unknown field', { ...good, nmae: 'typo' }, 'nmae', /unknown field/],
  ];
  for (const [label, body, field, message] of cases) {
    const res = await save(ctx, body);
    assert.is(res.status, 400, `${label}: ${res.text}`);
    assert.is(res.json.code, 'invalid_argument', label);
    assert.ok(res.json.message.startsWith(`${field}: `), `${label}: ${res.json.message}`);
    assert.match(res.json.message, message, label);
    assert.is(res.json.details?.[0]?.debug?.field, field, `${label}: FieldViolation`);
  }
  const everyProblem = await save(ctx, { ...good, name: ' ', method: 'FROB', path: '//evil.example', headers: { 'bad header': 'v', accept: 'x'.repeat(9000) }, body: 'x'.repeat(64 * 1024 + 1) });
  assert.is(everyProblem.status, 400, everyProblem.text);
  assert.match(everyProblem.json.message, /^name: is required$/, 'the first bad field in the message');
  assert.equal(
    everyProblem.json.details.map((d: { debug: { field: string } }) => d.debug.field),
    ['name', 'method', 'path', 'headers.bad header', 'headers.accept', 'body'],
    'every bad field in the details, so that one correction fixes them all',
  );
  assert.is(await count(ctx, ctx.alice), before, 'no refused request was stored');
  const wrongMethod = await call(ctx.server, 'PUT', '/v1/console/requests', { key: ctx.alice, body: good });
  assert.is(wrongMethod.status, 405);
  assert.is(wrongMethod.headers['allow'], 'POST, GET, HEAD');
  const noKey = await call(ctx.server, 'GET', '/v1/console/requests', { key: null });
  assert.is(noKey.status, 401);
  assert.is(noKey.json.code, 'unauthenticated');
});

saved('GetSavedRequest needs exactly one of id and share_token; unknown ids and tokens are 404', async (ctx) => {
  const neither = await call(ctx.server, 'POST', '/tms.v1.ConsoleService/GetSavedRequest', { key: ctx.alice, body: {} });
  assert.is(neither.status, 400, neither.text);
  assert.is(neither.json.code, 'invalid_argument');
  assert.match(neither.json.message, /^id: is required \(or share_token\)/);
  const both = await call(ctx.server, 'GET', '/v1/console/requests/req_abc?share_token=shr_x', { key: ctx.alice });
  assert.is(both.status, 400);
  assert.match(both.json.message, /^share_token: give either id or share_token, not both/);
  for (const path of ['/v1/console/requests/req_doesnotexist', '/v1/console/requests/not-an-id', '/v1/console/shared/shr_nope', '/v1/console/requests/req_nope/share']) {
    const method = path.endsWith('/share') ? 'POST' : 'GET';
    const res = await call(ctx.server, method, path, { key: ctx.alice });
    assert.is(res.status, 404, path);
    assert.is(res.json.code, 'not_found', path);
  }
});

saved('credential headers are dropped on the server, in any case; others are kept, names lower-cased', async (ctx) => {
  const res = await save(ctx, {
    ...good,
    name: 'with headers',
    headers: { Authorization: 'Bearer tms_key_secret', COOKIE: 'sid=1', 'Proxy-Authorization': 'Basic eA==', 'X-Trace': 'abc', Accept: 'application/json' },
  });
  assert.is(res.status, 200, res.text);
  assert.equal(res.json.saved_request.headers, { 'x-trace': 'abc', accept: 'application/json' });
  const got = await call(ctx.server, 'GET', `/v1/console/requests/${res.json.saved_request.id}`, { key: ctx.alice });
  assert.equal(got.json.saved_request.headers, { 'x-trace': 'abc', accept: 'application/json' });
  assert.not.match(got.text, /tms_key_secret|sid=1|eA==/);
});

saved('paging walks every saved request once, newest first; a bad page token is refused by name', async (ctx) => {
  const bobBefore = await count(ctx, ctx.bob);
  for (let i = 0; i < 25; i++) assert.is((await save(ctx, { ...good, name: `page ${i}` }, ctx.bob)).status, 200);
  const seen: string[] = [];
  const sizes: number[] = [];
  let token = '';
  do {
    const page = await call(ctx.server, 'GET', `/v1/console/requests?page_size=10${token ? `&page_token=${encodeURIComponent(token)}` : ''}`, { key: ctx.bob });
    assert.is(page.status, 200, page.text);
    sizes.push(page.json.saved_requests.length);
    seen.push(...page.json.saved_requests.map((r: { name: string }) => r.name));
    token = page.json.next_page_token;
    assert.not.match(token, /req_/, 'the token is opaque');
  } while (token);
  assert.equal(sizes, [10, 10, 5 + bobBefore].filter((n) => n > 0));
  assert.equal(seen.slice(0, 25), Array.from({ length: 25 }, (_, i) => `page ${24 - i}`));
  assert.is(new Set(seen).size, seen.length, 'no duplicates');
  const bad = await call(ctx.server, 'GET', '/v1/console/requests?page_token=garbage', { key: ctx.bob });
  assert.is(bad.status, 400);
  assert.match(bad.json.message, /^page_token: /);
  const tooBig = await call(ctx.server, 'GET', '/v1/console/requests?page_size=100000', { key: ctx.bob });
  assert.is(tooBig.status, 400);
  assert.match(tooBig.json.message, /^page_size: must be at most/);
});

saved('ownership: another account, admins included, gets 404 for everything but a live share token', async (ctx) => {
  const mine = (await save(ctx, { ...good, name: 'private' })).json.saved_request;
  for (const key of [ctx.bob, ctx.server.adminKey]) {
    for (const [method, path] of [
      ['GET', `/v1/console/requests/${mine.id}`],
      ['DELETE', `/v1/console/requests/${mine.id}`],
      ['POST', `/v1/console/requests/${mine.id}/share`],
      ['DELETE', `/v1/console/requests/${mine.id}/share`],
    ] as const) {
      const res = await call(ctx.server, method, path, { key });
      assert.is(res.status, 404, `${method} ${path}`);
      assert.is(res.json.code, 'not_found');
    }
    const list = await call(ctx.server, 'GET', '/v1/console/requests?page_size=1000', { key });
    assert.not.ok(list.json.saved_requests.some((r: { id: string }) => r.id === mine.id));
  }
  const shared = await call(ctx.server, 'POST', `/v1/console/requests/${mine.id}/share`, { key: ctx.alice });
  const token = shared.json.saved_request.share_token as string;
  assert.match(token, /^shr_[\w-]{43}$/);
  assert.is((await call(ctx.server, 'POST', `/v1/console/requests/${mine.id}/share`, { key: ctx.alice })).json.saved_request.share_token, token, 'sharing again keeps the token');
  const opened = await call(ctx.server, 'GET', `/v1/console/shared/${token}`, { key: ctx.bob });
  assert.is(opened.status, 200);
  assert.is(opened.json.saved_request.owner, 'alice');
  assert.is((await call(ctx.server, 'GET', `/v1/console/shared/${token}`, { key: null })).status, 401, 'nobody sees it before logging in');
  await call(ctx.server, 'DELETE', `/v1/console/requests/${mine.id}/share`, { key: ctx.alice });
  assert.is((await call(ctx.server, 'GET', `/v1/console/shared/${token}`, { key: ctx.bob })).status, 404, 'unshared: the old link is dead');
  const again = await call(ctx.server, 'POST', `/v1/console/requests/${mine.id}/share`, { key: ctx.alice });
  assert.is.not(again.json.saved_request.share_token, token, 'a new share makes a new token');
  await call(ctx.server, 'DELETE', `/v1/console/requests/${mine.id}`, { key: ctx.alice });
  assert.is((await call(ctx.server, 'GET', `/v1/console/shared/${again.json.saved_request.share_token}`, { key: ctx.bob })).status, 404, 'deleting it ends the share');
});

saved('deleting an account deletes its saved requests and ends their shares; a new account of that name starts empty', async (ctx) => {
  const carol = { username: 'carol', password: 'carol has a long password' };
  const key = await logIn(ctx.server, carol);
  for (let i = 0; i < 3; i++) assert.is((await save(ctx, { ...good, name: `carol ${i}` }, key)).status, 200);
  const first = (await call(ctx.server, 'GET', '/v1/console/requests?page_size=1', { key })).json.saved_requests[0];
  const token = (await call(ctx.server, 'POST', `/v1/console/requests/${first.id}/share`, { key })).json.saved_request.share_token as string;
  assert.is((await call(ctx.server, 'GET', `/v1/console/shared/${token}`, { key: ctx.bob })).status, 200);

  assert.is((await call(ctx.server, 'DELETE', '/v1/accounts/carol')).status, 200);
  assert.is((await call(ctx.server, 'GET', `/v1/console/shared/${token}`, { key: ctx.bob })).status, 404, 'the share ended with the account');
  const again = await logIn(ctx.server, carol);
  assert.is(await count(ctx, again), 0, 'the new carol does not inherit the old one');
  assert.is((await call(ctx.server, 'GET', `/v1/console/requests/${first.id}`, { key: again })).status, 404);
});

saved('at most 200 per account, also under concurrent saves: the rest get 429 resource_exhausted', async (ctx) => {
  const key = (await call(ctx.server, 'POST', '/v1/keys', { body: { name: 'bulk', scopes: ['read'] } })).json.key as string;
  const answers = await Promise.all(Array.from({ length: 210 }, (_, i) => save(ctx, { ...good, name: `bulk ${i}` }, key)));
  assert.is(answers.filter((a) => a.status === 200).length, 200);
  const refused = answers.filter((a) => a.status !== 200);
  assert.is(refused.length, 10);
  for (const answer of refused) {
    assert.is(answer.status, 429);
    assert.is(answer.json.code, 'resource_exhausted');
    assert.match(answer.json.message, /at most 200 saved requests; delete some first/);
  }
  assert.is(await count(ctx, key), 200);
});

saved('saved requests survive a restart on the same data', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tms-saved-'));
  try {
    const first = await startTestServer({ dataDir });
    const key = (await call(first, 'POST', '/v1/keys', { body: { name: 'restart', scopes: ['read'] } })).json.key as string;
    const kept = (await call(first, 'POST', '/v1/console/requests', { key, body: { ...good, name: 'kept' } })).json.saved_request;
    const shared = (await call(first, 'POST', `/v1/console/requests/${kept.id}/share`, { key })).json.saved_request;
    await first.stop();
    const again = await startTestServer({ dataDir });
    try {
      const got = await call(again, 'GET', `/v1/console/requests/${kept.id}`, { key });
      assert.is(got.status, 200, got.text);
      assert.equal(got.json.saved_request, shared);
      assert.is((await call(again, 'GET', `/v1/console/shared/${shared.share_token}`)).status, 200, 'the share token too');
    } finally {
      await again.stop();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

saved.run();
