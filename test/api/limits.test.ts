import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import http2 from 'node:http2';
import { gzipSync } from 'node:zlib';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_KEY, call, startTestServer, type TestServer } from '../support/server.ts';
import { grpcCall } from '../support/grpc.ts';
import { openOffline } from '../../src/accounts/offline.ts';
import { OPERATOR } from '../../src/accounts/principal.ts';
import { hashPassword } from '../../src/accounts/password-hash.ts';

const TIMEOUT_MS = 100;
// A login verifies the password at the cost stored with its hash. This account's cost (5× the production
// p) makes the check take far longer than the limit on any hardware; before() fails loudly if it does not.
const SLOW_SCRYPT = { log2N: 15, r: 8, p: 16 };
const SLOW = { username: 'slow', password: 'slow-password-0001' };

const limits = suite<{ server: TestServer; dataDir: string }>('request timeout');
limits.before(async (ctx) => {
  const started = performance.now();
  await hashPassword('timing probe', SLOW_SCRYPT);
  const hashMs = performance.now() - started;
  assert.ok(hashMs > 3 * TIMEOUT_MS, `a password check at this cost must take well over ${TIMEOUT_MS} ms; took ${hashMs} ms`);

  ctx.dataDir = await mkdtemp(join(tmpdir(), 'tms-limits-'));
  const offline = await openOffline(ctx.dataDir, { create: true, scrypt: SLOW_SCRYPT });
  try {
    await offline.access.ensureAdmin({ adminKey: ADMIN_KEY });
    await offline.access.createAccount(OPERATOR, { ...SLOW, scopes: ['read'] });
  } finally {
    await offline.close();
  }
  ctx.server = await startTestServer({ dataDir: ctx.dataDir, requestTimeoutMs: TIMEOUT_MS });
});
limits.after(async (ctx) => {
  await ctx.server.stop();
  await rm(ctx.dataDir, { recursive: true, force: true });
});

limits('REST: a request over TMS_REQUEST_TIMEOUT_MS gets 504 deadline_exceeded (not the 401 the work would give)', async ({ server }) => {
  const res = await call(server, 'POST', '/v1/login', { key: null, body: { username: SLOW.username, password: 'not the password' } });
  assert.is(res.status, 504);
  assert.is(res.json.code, 'deadline_exceeded');
  assert.match(res.json.message, /^request: not finished within 100 ms \(TMS_REQUEST_TIMEOUT_MS\); a write may still complete after this answer, so read before retrying one$/);
  assert.type(res.headers['x-request-id'], 'string');
});

limits('gRPC: the same limit gives DEADLINE_EXCEEDED', async ({ server }) => {
  const res = await grpcCall(server.port, 'tms.v1.AccountService.Login', { username: SLOW.username, password: 'not the password' }, null);
  assert.is(res.codeName, 'deadline_exceeded');
  assert.match(res.message, /not finished within 100 ms/);
});

limits("Connect: a client's shorter connect-timeout-ms is the limit, and the error names it", async ({ server }) => {
  const res = await call(server, 'POST', '/tms.v1.AccountService/Login', {
    key: null,
    headers: { 'connect-timeout-ms': '50' },
    body: { username: SLOW.username, password: 'not the password' },
  });
  assert.is(res.json.code, 'deadline_exceeded', res.text);
  assert.match(res.json.message, /^request: not finished within 50 ms \(connect-timeout-ms\)/);
  const longer = await call(server, 'POST', '/tms.v1.AccountService/Login', {
    key: null,
    headers: { 'connect-timeout-ms': '60000' },
    body: { username: SLOW.username, password: 'not the password' },
  });
  assert.match(longer.json.message, /^request: not finished within 100 ms \(TMS_REQUEST_TIMEOUT_MS\)/, 'the server limit, where it is the shorter');
});

limits.run();

// The default time limit: a 100 ms one would let a pause of the loaded machine answer these first.
const messages = suite<{ server: TestServer }>('RPC body limit');
messages.before(async (ctx) => {
  ctx.server = await startTestServer({ bodyLimitBytes: 16 * 1024 });
});
messages.after((ctx) => ctx.server.stop());

messages('gRPC-Web over HTTP/1.1: a call refused before its body has all arrived (a message over the limit) closes the connection', async ({ server }) => {
  const socket = connect(server.port, '127.0.0.1');
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.setTimeout(10_000, () => socket.destroy());
  socket.write(
    `POST /tms.v1.TimelineService/CreateTimeline HTTP/1.1\r\nHost: tms\r\nAuthorization: Bearer ${ADMIN_KEY}\r\n` +
      `Content-Type: application/grpc-web+proto\r\nContent-Length: 20000\r\n\r\n${'x'.repeat(1000)}`,
  );
  await new Promise((resolve) => socket.once('close', resolve));
  assert.match(text, /^HTTP\/1\.1 200 /);
  const head = text.slice(0, text.indexOf('\r\n\r\n'));
  assert.match(head, /\r\nconnection: close(\r\n|$)/i, 'the rest of the body is not read as a next request');
  assert.is(text.match(/HTTP\/1\.1 /g)?.length, 1, `one answer on the connection, got: ${text}`);
  assert.match(text, /grpc-status:\s*8/, 'RESOURCE_EXHAUSTED');
});

messages('gRPC and Connect refuse a message over the body limit with resource_exhausted', async ({ server }) => {
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

messages.run();

// A second timer (Node's whole-request backstop, one check interval after the handler's deadline) must never
// answer first: at 1 s, that would take a stall of over a second between the two.
const BODY_TIMEOUT_MS = 1000;
const bodies = suite<{ server: TestServer }>(`request bodies that never finish arriving (${BODY_TIMEOUT_MS} ms limit)`);
bodies.before(async (ctx) => {
  ctx.server = await startTestServer({ requestTimeoutMs: BODY_TIMEOUT_MS });
});
bodies.after(async (ctx) => {
  await ctx.server.stop();
});

/** Sends a request whose body never finishes and reads everything the server sends until it closes the connection. */
function sendUnfinishedBody(server: TestServer, path: string, contentType = 'application/json', framing = ''): Promise<string> {
  const socket = connect(server.port, '127.0.0.1');
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  // A server that never closes must fail the test, not hang it.
  socket.setTimeout(BODY_TIMEOUT_MS * 10, () => socket.destroy());
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: tms\r\nAuthorization: Bearer ${ADMIN_KEY}` +
      `\r\nContent-Type: ${contentType}\r\nContent-Length: 100\r\n\r\n${framing}{"base_timeline_id": `,
  );
  return new Promise((resolve) => socket.once('close', () => resolve(text)));
}

// REST and Connect unary calls start their deadline before reading the body, so they answer it at the limit.
for (const [face, path] of [
  ['REST', '/v1/create-timeline'],
  ['Connect', '/tms.v1.TimelineService/CreateTimeline'],
] as const) {
  bodies(`${face}: a body that never finishes arriving gets one 504 deadline_exceeded, then the connection closes`, async ({ server }) => {
    const text = await sendUnfinishedBody(server, path);
    assert.match(text, /^HTTP\/1\.1 504 /);
    assert.is(text.match(/HTTP\/1\.1 /g)?.length, 1, `one answer on the connection, got: ${text}`);
    assert.match(text, /\r\nconnection: close\r\n/i);
    assert.match(text, /"code":"deadline_exceeded"/);
    const list = await call(server, 'GET', '/v1/timelines');
    assert.is(list.json.timelines.length, 1, 'nothing was created');
  });
}

/** A gRPC-Web envelope header: no flags, a 95-byte message (the rest of the 100-byte body). */
const ENVELOPE_OF_95_BYTES = '\0\0\0\0_';

bodies('gRPC-Web: a body that never finishes arriving gets one 408 deadline_exceeded, then the connection closes', async ({ server }) => {
  const text = await sendUnfinishedBody(server, '/tms.v1.TimelineService/CreateTimeline', 'application/grpc-web+json', ENVELOPE_OF_95_BYTES);
  assert.match(text, /^HTTP\/1\.1 408 /);
  assert.is(text.match(/HTTP\/1\.1 /g)?.length, 1, `one answer on the connection, got: ${text}`);
  assert.match(text, /"code":"deadline_exceeded"/);
  const list = await call(server, 'GET', '/v1/timelines');
  assert.is(list.json.timelines.length, 1, 'nothing was created');
});

/** The same over HTTP/2, where Node's whole-request limit does not apply: what the stream gets, until it closes. */
function sendUnfinishedBodyOverHttp2(server: TestServer, path: string, headers: Record<string, string>, body: Uint8Array): Promise<{ status?: number; text: string; closedByTest: boolean }> {
  const session = http2.connect(`http://127.0.0.1:${server.port}`);
  session.on('error', () => undefined);
  const stream = session.request({ ':method': 'POST', ':path': path, authorization: `Bearer ${ADMIN_KEY}`, ...headers, 'content-length': String(body.length + 50) });
  let status: number | undefined;
  let text = '';
  let closedByTest = false;
  stream.on('response', (response) => (status = Number(response[':status'])));
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => (text += chunk));
  stream.on('error', () => undefined);
  stream.write(body);
  // A server that never closes the stream must fail the test, not hang it.
  const giveUp = setTimeout(() => {
    closedByTest = true;
    stream.close();
  }, BODY_TIMEOUT_MS * 10);
  return new Promise((resolve) =>
    stream.once('close', () => {
      clearTimeout(giveUp);
      session.close();
      resolve({ status, text, closedByTest });
    }),
  );
}

// Calls connect-node serves (a compressed body; gRPC-Web), whose deadline starts only once the body is read.
for (const [face, headers, body] of [
  ['gRPC-Web', { 'content-type': 'application/grpc-web+json' }, Buffer.from(`${ENVELOPE_OF_95_BYTES}{"base_timeline_id": `)],
  ['Connect, gzip', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, gzipSync('{"base_timeline_id": "primary"}').subarray(0, 10)],
] as const) {
  bodies(`HTTP/2, ${face}: a body that never finishes arriving gets deadline_exceeded at the limit, then the stream closes`, async ({ server }) => {
    const { status, text, closedByTest } = await sendUnfinishedBodyOverHttp2(server, '/tms.v1.TimelineService/CreateTimeline', headers, body);
    assert.not.ok(closedByTest, `the server ended the stream (got ${status} ${text})`);
    assert.is(status, 408, text);
    assert.match(text, /"code":"deadline_exceeded"/);
    assert.match(text, /TMS_REQUEST_TIMEOUT_MS/);
    const list = await call(server, 'GET', '/v1/timelines');
    assert.is(list.json.timelines.length, 1, 'nothing was created');
  });
}

bodies('a connection that sends nothing is closed at the limit', async ({ server }) => {
  const socket = connect(server.port, '127.0.0.1');
  let closedByTest = false;
  // A server that holds the connection must fail the test, not hang it.
  socket.setTimeout(BODY_TIMEOUT_MS * 10, () => {
    closedByTest = true;
    socket.destroy();
  });
  await new Promise((resolve) => socket.once('close', resolve));
  assert.not.ok(closedByTest, 'the server closed the silent connection');
  const res = await call(server, 'GET', '/v1/timeline/primary');
  assert.is(res.status, 200, 'the next connection is served');
});

bodies('fast requests are unaffected by the timeout', async ({ server }) => {
  const res = await call(server, 'GET', '/v1/timeline/primary');
  assert.is(res.status, 200);
  assert.is(res.json.timeline.timeline_id, 'primary');
});

bodies.run();

