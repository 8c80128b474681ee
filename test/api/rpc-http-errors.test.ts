// An RPC path answers HTTP mistakes in the same error JSON as every other route (connect-node alone answers
// them with an empty body): a method other than POST is 405 with Allow, a content type no RPC protocol
// reads is 415 naming the body.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, startTestServer, type TestServer } from '../support/server.ts';

const rpc = suite<{ server: TestServer }>('RPC paths: HTTP mistakes in the error JSON');
rpc.before(async (ctx) => {
  ctx.server = await startTestServer();
});
rpc.after(async (ctx) => {
  await ctx.server?.stop();
});

const PATH = '/tms.v1.EventService/SearchEvents';

rpc('methods other than POST: 405, Allow: POST, unimplemented', async ({ server }) => {
  for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
    const res = await call(server, method, PATH, { rawBody: '{}' });
    assert.is(res.status, 405, method);
    assert.is(res.headers['allow'], 'POST', method);
    assert.is(res.json.code, 'unimplemented', method);
    assert.match(res.json.message, new RegExp(`method ${method} is not allowed on ${PATH.replace(/\./g, '\\.')}`));
    assert.ok(res.headers['x-request-id']);
  }
});

rpc('a content type no RPC protocol reads: 415, invalid_argument naming the request body', async ({ server }) => {
  for (const type of ['text/plain', 'application/json; charset=latin1', 'application/xml', 'multipart/form-data; boundary=x', 'application/grpc-web-text']) {
    const res = await call(server, 'POST', PATH, { rawBody: '{"location": "Paris"}', headers: { 'content-type': type } });
    assert.is(res.status, 415, type);
    assert.is(res.json.code, 'invalid_argument', type);
    assert.is(res.json.details[0].debug.field, 'request body', type);
    assert.match(res.json.message, new RegExp(`^request body: Content-Type must be application/json or application/proto \\(Connect\\).*got ${JSON.stringify(type).replace(/[+.]/g, '\\$&')}`), type);
  }
  const ok = await call(server, 'POST', PATH, { body: { location: 'Paris' }, headers: { 'content-type': 'application/json; charset=utf-8' } });
  assert.is(ok.status, 200, 'JSON with charset=utf-8 is Connect');
});

rpc('bytes that are not HTTP/1.1 name the request as the field', async ({ server }) => {
  const res = await call(server, 'FOO', '/v1/search-events', { rawBody: '{}' });
  assert.is(res.status, 400);
  assert.equal(res.json.details.map((d: { debug: { field: string } }) => d.debug.field), ['request']);
});

rpc.run();
