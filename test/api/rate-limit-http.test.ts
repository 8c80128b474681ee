// The per-credential rate limit on a real server: 429 with a numeric Retry-After on REST and Connect,
// resource_exhausted with a retry-after trailer on gRPC, one bucket per credential across faces, open again
// after the wait.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN_KEY, call, startTestServer, type TestServer } from '../support/server.ts';
import { grpcCall } from '../support/grpc.ts';
import { createKey, sleep } from '../support/accounts.ts';

const RATE = 2;
const BURST = 2 * RATE;

const limits = suite<{ server: TestServer }>('rate limit per credential');
limits.before(async (ctx) => {
  ctx.server = await startTestServer({ rateLimit: RATE });
});
limits.after(async (ctx) => {
  await ctx.server.stop();
});

/** Calls until the first refusal (at most `max` calls); returns the statuses seen and the refusal. */
async function exhaust(server: TestServer, key: string, max = BURST + 16) {
  const statuses: number[] = [];
  for (let i = 0; i < max; i++) {
    const res = await call(server, 'GET', '/v1/timelines', { key });
    statuses.push(res.status);
    if (res.status !== 200) return { statuses, refused: res };
  }
  return { statuses, refused: undefined };
}

limits('a burst of twice the rate passes, then 429 resource_exhausted with Retry-After; after the wait it passes again', async ({ server }) => {
  const key = (await createKey(server, ADMIN_KEY, { name: 'burst', scopes: ['read'] })).key;
  const { statuses, refused } = await exhaust(server, key);
  assert.equal(statuses.slice(0, BURST), Array(BURST).fill(200), 'the burst passes');
  assert.ok(refused, `never refused: ${statuses.join(' ')}`);
  assert.is(refused.status, 429, refused.text);
  assert.is(refused.json.code, 'resource_exhausted');
  assert.match(refused.json.message, /^rate limit exceeded for credential key_[0-9a-f]{16}: retry after \d+ s$/);
  const retryAfter = String(refused.headers['retry-after']);
  // One token comes back every 1/RATE s: the wait is a whole number of seconds, at least 1, at most ⌈1/RATE⌉.
  assert.is(retryAfter, String(Math.max(1, Math.ceil(1 / RATE))));
  assert.ok(refused.json.message.endsWith(`retry after ${retryAfter} s`), 'header and message agree');
  assert.ok(typeof refused.headers['x-request-id'] === 'string');

  await sleep(Number(retryAfter) * 1000);
  const again = await call(server, 'GET', '/v1/timelines', { key });
  assert.is(again.status, 200, again.text);
});

limits('each credential has its own bucket, and public routes are never limited', async ({ server }) => {
  const first = (await createKey(server, ADMIN_KEY, { name: 'first', scopes: ['read'] })).key;
  const second = (await createKey(server, ADMIN_KEY, { name: 'second', scopes: ['read'] })).key;
  assert.ok((await exhaust(server, first)).refused, 'the first key runs out');
  assert.is((await call(server, 'GET', '/v1/timelines', { key: second })).status, 200, 'the second key is untouched');
  for (let i = 0; i < BURST + 4; i++) {
    assert.is((await call(server, 'GET', '/healthz', { key: first })).status, 200, `healthz ${i}`);
  }
});

limits.run();

// One token per 4 s and a burst of one: a refill between two calls needs a stall of seconds, not a slow
// connection set-up on a loaded machine.
const SLOW_RATE = 0.25;
const shared = suite<{ server: TestServer }>(`one bucket per credential across faces (${SLOW_RATE} requests per second, burst 1)`);
shared.before(async (ctx) => {
  ctx.server = await startTestServer({ rateLimit: SLOW_RATE });
});
shared.after(async (ctx) => {
  await ctx.server.stop();
});

shared('gRPC, REST and Connect draw from one bucket; each refuses in its own protocol with the wait left', async ({ server }) => {
  const key = (await createKey(server, ADMIN_KEY, { name: 'faces', scopes: ['read'] })).key;
  const fullWait = Math.ceil(1 / SLOW_RATE);
  assert.is((await grpcCall(server.port, 'tms.v1.TimelineService.ListTimelines', {}, key)).codeName, 'ok', 'the one token');

  // The wait shrinks as the token comes back, so each face's is at most the one before it.
  const rest = await call(server, 'GET', '/v1/timelines', { key });
  assert.is(rest.status, 429, 'REST finds the bucket gRPC emptied');
  const restWait = Number(rest.headers['retry-after']);
  assert.ok(restWait >= 1 && restWait <= fullWait, `Retry-After ${restWait}`);

  const connect = await call(server, 'POST', '/tms.v1.TimelineService/ListTimelines', { body: {}, key });
  assert.is(connect.status, 429, connect.text);
  assert.is(connect.json.code, 'resource_exhausted');
  const connectWait = Number(connect.headers['retry-after']);
  assert.ok(connectWait >= 1 && connectWait <= restWait, `Connect Retry-After ${connectWait}, REST ${restWait}`);

  const grpc = await grpcCall(server.port, 'tms.v1.TimelineService.ListTimelines', {}, key);
  assert.is(grpc.codeName, 'resource_exhausted');
  assert.match(grpc.message, /^rate limit exceeded for credential key_[0-9a-f]{16}: retry after \d+ s$/);
  // The wait is also metadata a gRPC client can read without parsing the message: retry-after, in seconds.
  const grpcWait = Number(grpc.trailers['retry-after']);
  assert.ok(grpcWait >= 1 && grpcWait <= connectWait, `gRPC retry-after ${grpcWait}, Connect ${connectWait}`);
  assert.ok(grpc.message.endsWith(`retry after ${grpcWait} s`), 'trailer and message agree');
});

shared.run();
