import * as assert from 'uvu/assert';
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import { Client, credentials, Metadata, status } from '@grpc/grpc-js';
import { TimelineService } from '../../src/gen/tms/v1/timeline_service_pb.ts';
import { EventService, SearchEventsRequestSchema, SearchEventsResponseSchema } from '../../src/gen/tms/v1/event_service_pb.ts';
import {
  HealthCheckRequestSchema,
  HealthCheckResponseSchema,
  HealthCheckResponse_ServingStatus,
  HealthListRequestSchema,
  HealthListResponseSchema,
} from '../../src/gen/grpc/health/v1/health_pb.ts';
import { ServerReflectionRequestSchema, ServerReflectionResponseSchema } from '../../src/gen/grpc/reflection/v1/reflection_pb.ts';
import { call, startTestServer, type TestServer } from '../support/server.ts';
import { asAdmin, connectSuite } from '../support/connect.ts';
import { bidiStream, grpcCall, isServiceError, reader, serverStream, unary } from '../support/grpc.ts';

const protocols = connectSuite<{ server: TestServer }>('one port: Connect, gRPC-Web, gRPC, reflection, health');
protocols.before(async (ctx) => {
  ctx.server = await startTestServer();
});
protocols.after(async (ctx) => {
  await ctx.server.stop();
});

protocols('a Connect client over HTTP/1.1 and HTTP/2 on the same port', async ({ server }) => {
  for (const httpVersion of ['1.1', '2'] as const) {
    const transport = createConnectTransport({ baseUrl: server.url, httpVersion, interceptors: [asAdmin] });
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
  const transport = createGrpcWebTransport({ baseUrl: server.url, httpVersion: '1.1', interceptors: [asAdmin] });
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

protocols('Connect and gRPC-Web without a key are refused as unauthenticated, like REST and gRPC', async ({ server }) => {
  for (const transport of [
    createConnectTransport({ baseUrl: server.url, httpVersion: '1.1' }),
    createConnectTransport({ baseUrl: server.url, httpVersion: '2' }),
    createGrpcWebTransport({ baseUrl: server.url, httpVersion: '1.1' }),
  ]) {
    const events = createClient(EventService, transport);
    try {
      await events.searchEvents({ location: 'london' });
      assert.unreachable('a call without a key must fail');
    } catch (error) {
      assert.ok(error instanceof ConnectError, String(error));
      assert.is(error.code, Code.Unauthenticated);
      assert.match(error.rawMessage, /Authorization/);
    }
  }
});

protocols('gRPC: grpc-js reads an error message whole, punctuation, % and accents included, as REST gives it', async ({ server }) => {
  const interval = { location: 'Paris', time_range: 'yesterday/today' };
  const rest = await call(server, 'GET', '/v1/search-events', { body: interval });
  assert.is(rest.status, 400, rest.text);
  assert.match(rest.json.message, /[:/,]/, 'a message with the characters in question');
  const bad = await grpcCall(server.port, 'tms.v1.EventService.SearchEvents', interval);
  assert.is(bad.codeName, 'invalid_argument');
  assert.is(bad.message, rest.json.message);

  const id = 'café 100%/x';
  const restMissing = await call(server, 'GET', `/v1/timeline/${encodeURIComponent(id)}`);
  assert.is(restMissing.status, 404, restMissing.text);
  const missing = await grpcCall(server.port, 'tms.v1.TimelineService.GetTimeline', { timeline_id: id });
  assert.is(missing.codeName, 'not_found');
  assert.is(missing.message, restMissing.json.message);
  assert.match(missing.message, /café 100%\/x/);

  // Through connect-node's path too: it reads compressed calls.
  const client = new Client(`127.0.0.1:${server.port}`, credentials.createInsecure(), { 'grpc.default_compression_algorithm': 2 });
  try {
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${server.adminKey}`);
    await unary(client, '/tms.v1.EventService/SearchEvents', SearchEventsRequestSchema, SearchEventsResponseSchema, create(SearchEventsRequestSchema, { location: 'Paris', timeRange: 'yesterday/today' }), metadata);
    assert.unreachable('a bad interval must fail');
  } catch (error) {
    assert.ok(isServiceError(error), String(error));
    assert.is(error.code, status.INVALID_ARGUMENT);
    assert.is(error.details, rest.json.message);
  } finally {
    client.close();
  }
});

protocols('gRPC: an unknown method is UNIMPLEMENTED, with the message naming it', async ({ server }) => {
  const client = new Client(`127.0.0.1:${server.port}`, credentials.createInsecure());
  try {
    await unary(client, '/tms.v1.EventService/NoSuchMethod', HealthCheckRequestSchema, HealthCheckResponseSchema, create(HealthCheckRequestSchema, {}));
    assert.unreachable('an unknown method must fail');
  } catch (error) {
    assert.ok(isServiceError(error), String(error));
    assert.is(error.code, status.UNIMPLEMENTED);
    assert.is(error.details, 'no RPC method /tms.v1.EventService/NoSuchMethod (unknown service or method)', 'grpc-js reads the message whole');
  } finally {
    client.close();
  }
});

protocols('gRPC-Web: an unknown method is unimplemented, with the message naming it, over HTTP/1.1 and HTTP/2', async ({ server }) => {
  const noSuchMethod = { ...EventService.method.searchEvents, parent: { ...EventService, typeName: 'tms.v1.NoSuchService' } };
  for (const httpVersion of ['1.1', '2'] as const) {
    const transport = createGrpcWebTransport({ baseUrl: server.url, httpVersion, interceptors: [asAdmin] });
    try {
      await transport.unary(noSuchMethod, undefined, undefined, undefined, { location: 'london' });
      assert.unreachable('an unknown service must fail');
    } catch (error) {
      assert.ok(error instanceof ConnectError, String(error));
      assert.is(error.code, Code.Unimplemented, httpVersion);
      assert.is(error.rawMessage, 'no RPC method /tms.v1.NoSuchService/SearchEvents (unknown service or method)', httpVersion);
    }
  }
});

protocols('gRPC health on the service port: List names every tms service SERVING, Watch streams SERVING', async ({ server }) => {
  const client = new Client(`127.0.0.1:${server.port}`, credentials.createInsecure());
  try {
    const list = await unary(client, '/grpc.health.v1.Health/List', HealthListRequestSchema, HealthListResponseSchema, create(HealthListRequestSchema));
    const statuses = Object.fromEntries(Object.entries(list.statuses).map(([name, value]) => [name, value.status]));
    for (const name of ['', 'tms.v1.EventService', 'tms.v1.TimelineService', 'tms.v1.AnchorService', 'tms.v1.ParadoxService', 'tms.v1.TutorialService']) {
      assert.is(statuses[name], HealthCheckResponse_ServingStatus.SERVING, `${name || '(server)'} in ${JSON.stringify(statuses)}`);
    }
    const watch = serverStream(client, '/grpc.health.v1.Health/Watch', HealthCheckRequestSchema, HealthCheckResponseSchema, create(HealthCheckRequestSchema, { service: 'tms.v1.EventService' }));
    watch.on('error', () => {});
    const first = await reader<{ status: number }>(watch).next();
    assert.is(first.status, HealthCheckResponse_ServingStatus.SERVING);
    watch.cancel();
  } finally {
    client.close();
  }
});

protocols.run();
