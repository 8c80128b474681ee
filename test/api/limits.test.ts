import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import { ADMIN_KEY, call, startTestServer, type TestServer } from '../support/server.ts';
import { grpcCall } from '../support/grpc.ts';

// A login against the first-start admin verifies a password with the production scrypt cost (~0.6 s on
// these machines), so a 100 ms request timeout is exceeded every time, on every face.
const TIMEOUT_MS = 100;

const limits = suite<{ server: TestServer; username: string }>('request timeout and RPC body limit');
limits.before(async (ctx) => {
  ctx.server = await startTestServer({ requestTimeoutMs: TIMEOUT_MS, bodyLimitBytes: 16 * 1024 });
  ctx.username = ctx.server.app.bootstrap!.username;
});
limits.after(async (ctx) => {
  await ctx.server.stop();
});

limits('REST: a request over TMS_REQUEST_TIMEOUT_MS gets 504 deadline_exceeded (not the 401 the work would give)', async ({ server, username }) => {
  const res = await call(server, 'POST', '/v1/login', { key: null, body: { username, password: 'not the password' } });
  assert.is(res.status, 504);
  assert.is(res.json.code, 'deadline_exceeded');
  assert.match(res.json.message, /^request: not finished within 100 ms \(TMS_REQUEST_TIMEOUT_MS\)/);
  assert.type(res.headers['x-request-id'], 'string');
});

limits('gRPC: the same limit gives DEADLINE_EXCEEDED', async ({ server, username }) => {
  const res = await grpcCall(server.port, 'tms.v1.AccountService.Login', { username, password: 'not the password' }, null);
  assert.is(res.codeName, 'deadline_exceeded');
  assert.match(res.message, /not finished within 100 ms/);
});

/** Sends a request whose body never finishes and reads everything the server sends until it closes the connection. */
function sendUnfinishedBody(server: TestServer, path: string): Promise<string> {
  const socket = connect(server.port, '127.0.0.1');
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  // A server that never closes must fail the test, not hang it.
  socket.setTimeout(TIMEOUT_MS * 30, () => socket.destroy());
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: tms\r\nAuthorization: Bearer ${ADMIN_KEY}` +
      '\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"base_timeline_id": ',
  );
  return new Promise((resolve) => socket.once('close', () => resolve(text)));
}

limits('REST: a body that never finishes arriving gets one 504 deadline_exceeded, then the connection closes', async ({ server }) => {
  const text = await sendUnfinishedBody(server, '/v1/create-timeline');
  assert.match(text, /^HTTP\/1\.1 504 /);
  assert.is(text.match(/HTTP\/1\.1 /g)?.length, 1, `one answer on the connection, got: ${text}`);
  assert.match(text, /\r\nconnection: close\r\n/i);
  assert.match(text, /"code":"deadline_exceeded"/);
  const list = await call(server, 'GET', '/v1/timelines');
  assert.is(list.json.timelines.length, 1, 'nothing was created');
});

limits('Connect: a body that never finishes arriving gets one 408 deadline_exceeded, then the connection closes', async ({ server }) => {
  const text = await sendUnfinishedBody(server, '/tms.v1.TimelineService/CreateTimeline');
  assert.match(text, /^HTTP\/1\.1 408 /);
  assert.is(text.match(/HTTP\/1\.1 /g)?.length, 1, `one answer on the connection, got: ${text}`);
  assert.match(text, /"code":"deadline_exceeded"/);
  const list = await call(server, 'GET', '/v1/timelines');
  assert.is(list.json.timelines.length, 1, 'nothing was created');
});

limits('fast requests are unaffected by the timeout', async ({ server }) => {
  const res = await call(server, 'GET', '/v1/timeline/primary');
  assert.is(res.status, 200);
  assert.is(res.json.timeline.timeline_id, 'primary');
});

limits('gRPC and Connect refuse a message over the body limit with resource_exhausted', async ({ server }) => {
  const description = 'x'.repeat(20 * 1024);
  const grpc = await grpcCall(server.port, 'tms.v1.TimelineService.CreateTimeline', { baseTimelineId: 'primary', description });
  assert.is(grpc.codeName, 'resource_exhausted');
  assert.match(grpc.message, /message size \d+ is larger than configured readMaxBytes 16384/);
  const connect = await call(server, 'POST', '/tms.v1.TimelineService/CreateTimeline', { body: { base_timeline_id: 'primary', description } });
  assert.is(connect.status, 429);
  assert.is(connect.json.code, 'resource_exhausted');
  const list = await call(server, 'GET', '/v1/timelines');
  assert.is(list.json.timelines.length, 1, 'nothing was created');
});

limits.run();
