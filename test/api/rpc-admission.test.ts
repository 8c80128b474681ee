// connect-node reads and decodes a call's body before any handler of ours runs (gRPC-Web, compressed Connect,
// compressed gRPC). The caller is admitted first, as on REST: one without access is refused whatever its body
// holds, so it costs no decompression or decoding, and an admitted call takes one token of its rate, not two.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http2 from 'node:http2';
import { ADMIN_KEY, call, startTestServer, type TestServer } from '../support/server.ts';
import { createKey } from '../support/accounts.ts';

const admission = suite<{ server: TestServer }>('RPCs connect-node decodes: the caller admitted before the body');
admission.before(async (ctx) => {
  ctx.server = await startTestServer();
});
admission.after(async (ctx) => {
  await ctx.server.stop();
});

const SEARCH = '/tms.v1.EventService/SearchEvents';
/** Not a message in any encoding: decoded first, it would be refused as a bad body. */
const GARBAGE = Buffer.from([0, 0, 0, 0, 3, 0xff, 0xff, 0xff]);

admission('gRPC-Web without a valid key: unauthenticated in grpc-status, not a decoding error', async ({ server }) => {
  for (const key of [null, 'tms_not_a_real_key_0000000000000000']) {
    const res = await call(server, 'POST', SEARCH, { key, rawBody: GARBAGE, headers: { 'content-type': 'application/grpc-web+proto' } });
    assert.is(res.status, 200);
    assert.is(res.headers['grpc-status'], '16', String(key));
    const rest = await call(server, 'GET', '/v1/timelines', { key });
    assert.is(rest.status, 401);
    assert.is(decodeURIComponent(String(res.headers['grpc-message'])), rest.json.message, 'the message REST gives');
  }
});

admission('compressed Connect without a key: 401 unauthenticated with the challenge, the body never unzipped', async ({ server }) => {
  const res = await call(server, 'POST', SEARCH, { key: null, rawBody: 'not gzip at all', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
  assert.is(res.status, 401, res.text);
  assert.is(res.json.code, 'unauthenticated');
  assert.match(res.json.message, /Authorization/);
  assert.is(res.headers['www-authenticate'], 'Bearer realm="tms"');
});

admission('compressed gRPC without a key: UNAUTHENTICATED in the trailers', async ({ server }) => {
  const session = http2.connect(`http://127.0.0.1:${server.port}`);
  try {
    const stream = session.request({ ':method': 'POST', ':path': SEARCH, 'content-type': 'application/grpc', 'grpc-encoding': 'gzip', te: 'trailers' });
    const trailers = new Promise<http2.IncomingHttpHeaders>((resolve) => stream.once('trailers', resolve));
    stream.resume();
    stream.end(Buffer.from([1, 0, 0, 0, 3, 0xff, 0xff, 0xff]));
    const got = await trailers;
    assert.is(got['grpc-status'], '16');
    assert.match(decodeURIComponent(String(got['grpc-message'])), /Authorization/);
  } finally {
    session.close();
  }
});

admission('a key without the scope is refused before its body is decoded', async ({ server }) => {
  const reader = (await createKey(server, ADMIN_KEY, { name: 'reads-only', scopes: ['read'] })).key;
  const res = await call(server, 'POST', '/tms.v1.TimelineService/CreateTimeline', { key: reader, rawBody: GARBAGE, headers: { 'content-type': 'application/grpc-web+proto' } });
  assert.is(res.headers['grpc-status'], '7', 'PERMISSION_DENIED');
  assert.match(decodeURIComponent(String(res.headers['grpc-message'])), /write/);
});

admission.run();

// One token every 4 s, a burst of one: a second token taken by the same call would refuse it.
const tokens = suite<{ server: TestServer }>('RPCs connect-node decodes: one token a call');
tokens.before(async (ctx) => {
  ctx.server = await startTestServer({ rateLimit: 0.25 });
});
tokens.after(async (ctx) => {
  await ctx.server.stop();
});

tokens('an admitted gRPC-Web call takes one token of its rate; the next call, on any face, finds none', async ({ server }) => {
  const key = (await createKey(server, ADMIN_KEY, { name: 'one-token', scopes: ['read'] })).key;
  const framed = (json: string) => Buffer.concat([Buffer.from([0, 0, 0, 0, json.length]), Buffer.from(json)]);
  const first = await call(server, 'POST', SEARCH, { key, rawBody: framed('{"location":"Paris"}'), headers: { 'content-type': 'application/grpc-web+json' } });
  assert.is(first.status, 200);
  assert.not.ok(first.headers['grpc-status'], 'not a trailers-only refusal');
  assert.match(first.text, /grpc-status:\s*0/, 'ok in the trailer frame');
  const next = await call(server, 'GET', '/v1/timelines', { key });
  assert.is(next.status, 429);
});

tokens.run();
