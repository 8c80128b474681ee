import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create } from '@bufbuild/protobuf';
import { createClient, type Interceptor } from '@connectrpc/connect';
import { createConnectTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { Client, credentials } from '@grpc/grpc-js';
import { TimelineService } from '../../src/gen/tms/v1/timeline_service_pb.ts';
import { EventService } from '../../src/gen/tms/v1/event_service_pb.ts';
import { HealthCheckRequestSchema, HealthCheckResponseSchema, HealthCheckResponse_ServingStatus } from '../../src/gen/grpc/health/v1/health_pb.ts';
import { ServerReflectionRequestSchema, ServerReflectionResponseSchema } from '../../src/gen/grpc/reflection/v1/reflection_pb.ts';
import { ADMIN_KEY, call, startTestServer, type TestServer } from '../support/server.ts';
import { bidiStream, reader, unary } from '../proto/grpc-harness.ts';

const protocols = suite<{ server: TestServer }>('one port: Connect, gRPC-Web, gRPC, reflection, health, shutdown');
protocols.before(async (ctx) => {
  ctx.server = await startTestServer();
});
protocols.after(async (ctx) => {
  await ctx.server.stop();
});

const bearer: Interceptor = (next) => (req) => {
  req.header.set('authorization', `Bearer ${ADMIN_KEY}`);
  return next(req);
};

protocols('a Connect client over HTTP/1.1 and HTTP/2 on the same port', async ({ server }) => {
  for (const httpVersion of ['1.1', '2'] as const) {
    const transport = createConnectTransport({ baseUrl: server.url, httpVersion, interceptors: [bearer] });
    const timelines = createClient(TimelineService, transport);
    const got = await timelines.getTimeline({ timelineId: 'primary' });
    assert.is(got.timeline?.timelineId, 'primary');
    assert.is(got.timeline?.kind, 'primary');
  }
});

protocols('Connect JSON uses the spec snake_case field names', async ({ server }) => {
  const res = await call(server, 'POST', '/tms.v1.TimelineService/GetTimeline', { body: { timeline_id: 'primary' } });
  assert.is(res.status, 200, res.text);
  assert.is(res.json.timeline.timeline_id, 'primary');
  assert.ok('event_count' in res.json.timeline);
});

protocols('a gRPC-Web call on the same port', async ({ server }) => {
  const transport = createGrpcWebTransport({ baseUrl: server.url, httpVersion: '1.1', interceptors: [bearer] });
  const events = createClient(EventService, transport);
  const page = await events.searchEvents({ location: 'london', pageSize: 3 });
  assert.ok(page.events.length > 0);
  assert.ok(page.events.length <= 3);
});

protocols('gRPC health says SERVING and reflection lists the services', async ({ server }) => {
  const client = new Client(`127.0.0.1:${server.port}`, credentials.createInsecure());
  try {
    const health = await unary(client, '/grpc.health.v1.Health/Check', HealthCheckRequestSchema, HealthCheckResponseSchema, create(HealthCheckRequestSchema, {}));
    assert.is(health.status, HealthCheckResponse_ServingStatus.SERVING);
    const stream = bidiStream(client, '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo', ServerReflectionRequestSchema, ServerReflectionResponseSchema);
    stream.write(create(ServerReflectionRequestSchema, { messageRequest: { case: 'listServices', value: '' } }));
    const answer = await reader<{ messageResponse: { case: string; value: { service: { name: string }[] } } }>(stream).next();
    stream.end();
    const names = answer.messageResponse.value.service.map((s) => s.name);
    for (const name of ['tms.v1.EventService', 'tms.v1.TimelineService', 'tms.v1.AnchorService', 'grpc.health.v1.Health']) {
      assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
    }
  } finally {
    client.close();
  }
});

protocols('SIGTERM finishes in-flight requests, then exits 0', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tms-shutdown-'));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--data-dir', dataDir, '--admin-key', ADMIN_KEY, '--rate-limit', '0', '--log-level', 'silent'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk;
        const match = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
        if (match) resolve(Number(match[1]));
      });
      child.once('exit', () => reject(new Error(`server exited early: ${out}`)));
    });
    // Warm up so the server is accepting before the burst; then SIGTERM lands while the burst is being served.
    assert.is((await call({ port }, 'GET', '/timeline/primary')).status, 200);
    const inFlight = Array.from({ length: 40 }, (_, i) =>
      call({ port }, 'POST', '/v1/create-timeline', { body: { base_timeline_id: 'primary', description: `during shutdown ${i}` } }),
    );
    await new Promise((r) => setTimeout(r, 30));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    const results = await Promise.allSettled(inFlight);
    const answered = results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<{ status: number }>).value.status);
    // Every request the server accepted was answered in full; none was cut off with a 5xx.
    assert.ok(answered.length > 0, 'some requests were in flight');
    for (const status of answered) assert.is(status, 200);
    assert.is(await exited, 0);
  } finally {
    child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  }
});

protocols.run();
