import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { connect as netConnect } from 'node:net';
import { connect as http2Connect, type ClientHttp2Session } from 'node:http2';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { CreateTimelineRequestSchema, CreateTimelineResponseSchema } from '../../src/gen/tms/v1/timeline_service_pb.ts';
import { Client, credentials, status } from '@grpc/grpc-js';
import { HealthCheckRequestSchema, HealthCheckResponseSchema, HealthCheckResponse_ServingStatus, type HealthCheckResponse } from '../../src/gen/grpc/health/v1/health_pb.ts';
import { ADMIN_KEY, call } from '../support/server.ts';
import { isServiceError, reader, serverStream } from '../support/grpc.ts';
import { startServeProcess } from '../support/serve-process.ts';

const REST_REQUESTS = 20;
const GRPC_REQUESTS = 5;

interface Answer {
  status: number;
  description: string;
}

/**
 * A REST create-timeline the server has provably started serving: its headers were parsed and handed to
 * the handler (the server said 100 Continue), and half its body has arrived. `finish` sends the rest.
 */
function restInFlight(port: number, description: string): Promise<{ finish(): Promise<Answer> }> {
  const body = JSON.stringify({ base_timeline_id: 'primary', description });
  const half = Math.floor(body.length / 2);
  const req: ClientRequest = httpRequest({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/v1/create-timeline',
    headers: {
      authorization: `Bearer ${ADMIN_KEY}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      expect: '100-continue',
    },
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, description: (JSON.parse(text) as { description: string }).description }));
    });
    req.once('error', reject);
  });
  // Awaited through finish(); until then a failure must not surface as an unhandled rejection.
  answer.catch(() => {});
  return new Promise((resolve, reject) => {
    req.once('error', reject);
    req.once('continue', () =>
      req.write(body.slice(0, half), () =>
        resolve({
          finish() {
            req.end(body.slice(half));
            return answer;
          },
        }),
      ),
    );
    req.flushHeaders();
  });
}

/** The same over gRPC (HTTP/2): the request's headers and half its message are sent on one stream. */
function grpcInFlight(session: ClientHttp2Session, description: string): { finish(): Promise<Answer> } {
  const message = Buffer.from(toBinary(CreateTimelineRequestSchema, create(CreateTimelineRequestSchema, { baseTimelineId: 'primary', description })));
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  const stream = session.request({
    ':method': 'POST',
    ':path': '/tms.v1.TimelineService/CreateTimeline',
    'content-type': 'application/grpc',
    te: 'trailers',
    authorization: `Bearer ${ADMIN_KEY}`,
  });
  const half = Math.floor(frame.length / 2);
  stream.write(frame.subarray(0, half));
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  const answer = new Promise<Answer>((resolve, reject) => {
    stream.once('trailers', (trailers) => {
      const reply = Buffer.concat(chunks);
      const grpcStatus = Number(trailers['grpc-status']);
      resolve({
        status: grpcStatus,
        description: grpcStatus === 0 ? fromBinary(CreateTimelineResponseSchema, reply.subarray(5)).description : String(trailers['grpc-message']),
      });
    });
    stream.once('error', reject);
  });
  answer.catch(() => {});
  return {
    finish() {
      stream.end(frame.subarray(half));
      return answer;
    },
  };
}

/**
 * Resolves once the server has seen the headers of every stream opened on the session before: it answers a
 * /healthz stream opened after them, and a client sends stream headers in the order the streams were opened.
 * (A PING would not do: the client sends it ahead of queued headers.)
 */
async function afterEarlierStreams(session: ClientHttp2Session): Promise<void> {
  const stream = session.request({ ':method': 'GET', ':path': '/healthz' });
  stream.end();
  stream.resume();
  await new Promise<void>((resolve, reject) => {
    stream.once('end', resolve);
    stream.once('error', reject);
  });
}

/** Whether a new connection is refused within 30 s (the server has stopped accepting; a loaded machine is slow to). */
async function refusesNewConnections(port: number): Promise<boolean> {
  const givesUpAt = Date.now() + 30_000;
  while (Date.now() < givesUpAt) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = netConnect({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', () => resolve(true));
    });
    if (refused) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal}: requests in flight over HTTP/1.1 and gRPC are answered in full, the process exits 0, and their writes survive a restart`, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'tms-shutdown-'));
    const args = ['--admin-key', ADMIN_KEY, '--rate-limit', '0', '--log-level', 'warn'];
    const server = await startServeProcess(dataDir, { args });
    try {
      const rest = await Promise.all(Array.from({ length: REST_REQUESTS }, (_, i) => restInFlight(server.port, `${signal} rest ${i}`)));
      const session = http2Connect(`http://127.0.0.1:${server.port}`);
      const grpc = Array.from({ length: GRPC_REQUESTS }, (_, i) => grpcInFlight(session, `${signal} grpc ${i}`));
      await afterEarlierStreams(session);

      const exited = server.stop(signal);
      assert.ok(await refusesNewConnections(server.port), 'shutdown began: new connections are refused');
      const answers = await Promise.all([...rest, ...grpc].map((request) => request.finish()));
      session.close();

      assert.equal(
        answers.map((a) => a.status),
        [...Array<number>(REST_REQUESTS).fill(200), ...Array<number>(GRPC_REQUESTS).fill(0)],
        'every request in flight got a full answer (HTTP 200, grpc-status 0)',
      );
      assert.is(await exited, 0, `exit code after ${signal}`);

      const restarted = await startServeProcess(dataDir, { args });
      try {
        const list = await call(restarted, 'GET', '/timelines', { body: { page_size: 1000 } });
        assert.is(list.status, 200, list.text);
        const kept = new Set((list.json.timelines as { description: string }[]).map((t) => t.description));
        for (const answer of answers) assert.ok(kept.has(answer.description), `"${answer.description}" was acknowledged, so it must survive`);
      } finally {
        assert.is(await restarted.stop(), 0);
      }
    } finally {
      await server.stop('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
      await rm(`${dataDir}.stdout`, { force: true });
    }
  });
}

test('a shutdown whose grace ends with requests still in flight says how many it cut, and exits 0', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tms-shutdown-'));
  const server = await startServeProcess(dataDir, { args: ['--admin-key', ADMIN_KEY, '--rate-limit', '0', '--shutdown-grace-ms', '300'] });
  try {
    // Half a body each: the requests stay in flight until the grace ends.
    await Promise.all([restInFlight(server.port, 'cut one'), restInFlight(server.port, 'cut two')]);
    assert.is(await server.stop('SIGTERM'), 0);
    const cut = server.logEntries().find((line) => line['msg'] === 'shutdown grace ended: requests still in flight were cut');
    assert.ok(cut, `a line says the grace ended: ${server.stdout()}`);
    assert.is(cut['requests'], 2);
    assert.is(cut['grace_ms'], 300);
    assert.is(cut['level'], 40, 'a warning');
    const requests = server.logEntries().filter((line) => line['msg'] === 'request' && line['route'] === 'tms.v1.TimelineService.CreateTimeline');
    assert.equal(
      requests.map((line) => [line['code'], line['status']]),
      [
        ['unavailable', 444],
        ['unavailable', 444],
      ],
      'logged as cut by the server (no answer went out), not as clients that left',
    );
  } finally {
    await server.stop('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
    await rm(`${dataDir}.stdout`, { force: true });
  }
});

test('a shutdown that finished every request in its grace has no such line', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tms-shutdown-'));
  const server = await startServeProcess(dataDir, { args: ['--admin-key', ADMIN_KEY, '--rate-limit', '0'] });
  try {
    assert.is((await call(server, 'GET', '/healthz', { key: null })).status, 200);
    assert.is(await server.stop('SIGTERM'), 0);
    assert.match(server.stdout(), /shutting down: finishing in-flight requests/);
    assert.not.match(server.stdout(), /shutdown grace ended/);
  } finally {
    await server.stop('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
    await rm(`${dataDir}.stdout`, { force: true });
  }
});

test('an open health Watch does not hold a shutdown: it ends with UNAVAILABLE once the server stops serving', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tms-shutdown-'));
  const server = await startServeProcess(dataDir, { args: ['--admin-key', ADMIN_KEY, '--rate-limit', '0', '--shutdown-grace-ms', '30000'] });
  const client = new Client(`127.0.0.1:${server.port}`, credentials.createInsecure());
  try {
    const call = serverStream(client, '/grpc.health.v1.Health/Watch', HealthCheckRequestSchema, HealthCheckResponseSchema, create(HealthCheckRequestSchema, {}));
    const ended = new Promise<unknown>((resolve) => call.once('error', resolve));
    const messages = reader<HealthCheckResponse>(call);
    assert.is((await messages.next()).status, HealthCheckResponse_ServingStatus.SERVING);
    const started = Date.now();
    const exited = server.stop('SIGTERM');
    assert.is((await messages.next()).status, HealthCheckResponse_ServingStatus.NOT_SERVING, 'the watcher hears of the shutdown first');
    const error = await ended;
    assert.ok(isServiceError(error) && error.code === status.UNAVAILABLE, String(error));
    assert.is(await exited, 0);
    assert.ok(Date.now() - started < 15_000, `the watch did not hold the 30 s grace (${Date.now() - started} ms)`);
    assert.not.match(server.stdout(), /shutdown grace ended/);
    const line = server.logEntries().find((entry) => entry['msg'] === 'request' && entry['route'] === 'grpc.health.v1.Health.Watch');
    assert.equal({ code: line?.['code'], protocol: line?.['protocol'] }, { code: 'unavailable', protocol: 'grpc' });
  } finally {
    client.close();
    await server.stop('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
    await rm(`${dataDir}.stdout`, { force: true });
  }
});

test('a second signal a second or more after the first exits at once; one at once after it (a Ctrl+C passed on twice) does not', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tms-shutdown-'));
  const server = await startServeProcess(dataDir, { args: ['--admin-key', ADMIN_KEY, '--rate-limit', '0', '--shutdown-grace-ms', '60000'] });
  try {
    // Half a body: the request stays in flight, so the first signal's shutdown waits for it.
    await restInFlight(server.port, 'never finished');
    const exited = server.stop('SIGINT');
    void server.stop('SIGINT');
    assert.ok(await refusesNewConnections(server.port), 'shutdown began');
    const stillWaiting = await Promise.race([exited.then(() => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 1_500))]);
    assert.ok(stillWaiting, 'the first signal, and its repeat, wait for the request in flight');
    const started = Date.now();
    await server.stop('SIGINT');
    assert.is(await exited, 130, '128 + SIGINT');
    assert.ok(Date.now() - started < 10_000, 'the second signal did not wait out the grace');
    assert.match(server.output(), /second signal: exiting now/);
  } finally {
    await server.stop('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
    await rm(`${dataDir}.stdout`, { force: true });
  }
});

test.run();
