import { create } from '@bufbuild/protobuf';
import { connect, type IncomingHttpHeaders } from 'node:http2';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  HealthCheckRequestSchema,
  HealthCheckResponse_ServingStatus as Serving,
  HealthCheckResponseSchema,
  HealthListRequestSchema,
  HealthListResponseSchema,
} from '../../src/gen/grpc/health/v1/health_pb.ts';
import type { HealthCheckResponse } from '../../src/gen/grpc/health/v1/health_pb.ts';
import { HealthState, registerHealth } from '../../src/server/grpc-infra/health.ts';
import { startHarness } from './grpc-harness.ts';
import { eventually } from '../support/eventually.ts';
import { isServiceError, reader, serverStream, unary } from '../support/grpc.ts';
import type { Harness } from './grpc-harness.ts';

const health = suite<{ harness: Harness; state: HealthState }>('grpc.health.v1 over a real h2c server');

health.before.each(async (context) => {
  context.state = new HealthState();
  const state = context.state;
  context.harness = await startHarness((router) => registerHealth(router, state));
});
health.after.each(async ({ harness }) => {
  await harness.close();
});

const check = (harness: Harness, service: string) =>
  unary(
    harness.client,
    '/grpc.health.v1.Health/Check',
    HealthCheckRequestSchema,
    HealthCheckResponseSchema,
    create(HealthCheckRequestSchema, { service }),
  );

const watch = (harness: Harness, service: string) => {
  const call = serverStream(
    harness.client,
    '/grpc.health.v1.Health/Watch',
    HealthCheckRequestSchema,
    HealthCheckResponseSchema,
    create(HealthCheckRequestSchema, { service }),
  );
  const errors: unknown[] = [];
  call.on('error', (error) => errors.push(error));
  return { call, errors, messages: reader<HealthCheckResponse>(call) };
};

health('Check reports the whole server SERVING from the start', async ({ harness }) => {
  const response = await check(harness, '');
  assert.is(response.status, Serving.SERVING);
});

health('Check reports the status set for a service', async ({ harness, state }) => {
  state.setStatus('tms.v1.EventService', 'NOT_SERVING');
  assert.is((await check(harness, 'tms.v1.EventService')).status, Serving.NOT_SERVING);
  state.setStatus('tms.v1.EventService', 'SERVING');
  assert.is((await check(harness, 'tms.v1.EventService')).status, Serving.SERVING);
});

health('Check answers NOT_FOUND for a service it does not know', async ({ harness }) => {
  try {
    await check(harness, 'tms.v1.NoSuchService');
    assert.unreachable('Check should have failed');
  } catch (error) {
    assert.ok(isServiceError(error), `expected a gRPC error, got ${String(error)}`);
    assert.is(error.code, GrpcStatus.NOT_FOUND);
    assert.match(error.details, 'tms.v1.NoSuchService');
  }
});

health('List returns every known service with its status', async ({ harness, state }) => {
  state.setStatus('tms.v1.EventService', 'SERVING');
  state.setStatus('tms.v1.AnchorService', 'NOT_SERVING');
  const response = await unary(
    harness.client,
    '/grpc.health.v1.Health/List',
    HealthListRequestSchema,
    HealthListResponseSchema,
    create(HealthListRequestSchema),
  );
  const statuses = Object.fromEntries(Object.entries(response.statuses).map(([name, value]) => [name, value.status]));
  assert.equal(statuses, {
    '': Serving.SERVING,
    'tms.v1.EventService': Serving.SERVING,
    'tms.v1.AnchorService': Serving.NOT_SERVING,
  });
});

health('Watch sends the current status, then each change, and stops when the client goes', async ({ harness, state }) => {
  state.setStatus('tms.v1.EventService', 'SERVING');
  const { call, messages } = watch(harness, 'tms.v1.EventService');
  assert.is((await messages.next()).status, Serving.SERVING);
  assert.is(state.watcherCount, 1);

  state.setStatus('tms.v1.EventService', 'SERVING'); // no change: nothing is sent
  state.setStatus('tms.v1.EventService', 'NOT_SERVING');
  assert.is((await messages.next()).status, Serving.NOT_SERVING);
  state.setStatus('tms.v1.EventService', 'SERVING');
  assert.is((await messages.next()).status, Serving.SERVING);

  call.cancel();
  await eventually('the server to drop the watcher after the client cancelled', () => state.watcherCount === 0);
});

health('a Watch that reaches its deadline ends with DEADLINE_EXCEEDED, never as a success', async ({ harness }) => {
  // Over HTTP/2 directly: grpc-js ends such a call on its own, whatever the server sends.
  const session = connect(`http://127.0.0.1:${harness.port}`);
  try {
    const stream = session.request({ ':method': 'POST', ':path': '/grpc.health.v1.Health/Watch', 'content-type': 'application/grpc', te: 'trailers', 'grpc-timeout': '300m' });
    stream.on('data', () => undefined);
    stream.end(Buffer.alloc(5));
    const trailers = await new Promise<IncomingHttpHeaders>((resolve) => stream.once('trailers', resolve));
    assert.is(trailers['grpc-status'], String(GrpcStatus.DEADLINE_EXCEEDED));
  } finally {
    session.close();
  }
});

health('Watch of an unknown service says SERVICE_UNKNOWN, then reports it once it is known', async ({ harness, state }) => {
  const { call, messages } = watch(harness, 'tms.v1.TimelineService');
  assert.is((await messages.next()).status, Serving.SERVICE_UNKNOWN);
  state.setStatus('tms.v1.TimelineService', 'SERVING');
  assert.is((await messages.next()).status, Serving.SERVING);
  call.cancel();
  await eventually('the watcher to end', () => state.watcherCount === 0);
});

health('shutdown turns everything NOT_SERVING, tells watchers, and ignores later changes', async ({ harness, state }) => {
  state.setStatus('tms.v1.EventService', 'SERVING');
  const { call, messages } = watch(harness, '');
  assert.is((await messages.next()).status, Serving.SERVING);
  state.shutdown();
  assert.is((await messages.next()).status, Serving.NOT_SERVING);
  state.setStatus('', 'SERVING');
  assert.is((await check(harness, '')).status, Serving.NOT_SERVING);
  assert.is((await check(harness, 'tms.v1.EventService')).status, Serving.NOT_SERVING);
  call.cancel();
  await eventually('the watcher to end', () => state.watcherCount === 0);
});

health('when the server stops serving, watches end with UNAVAILABLE after the last status, and a later one after its first', async ({ harness, state }) => {
  const first = watch(harness, '');
  assert.is((await first.messages.next()).status, Serving.SERVING);
  state.shutdown();
  assert.is((await first.messages.next()).status, Serving.NOT_SERVING);
  state.endWatches();
  const ended = new Promise<unknown>((resolve) => first.call.once('error', resolve));
  const error = await ended;
  assert.ok(isServiceError(error), String(error));
  assert.is(error.code, GrpcStatus.UNAVAILABLE);
  assert.match(error.details, /shutting down/);
  await eventually('the watcher to end', () => state.watcherCount === 0);

  const later = watch(harness, '');
  assert.is((await later.messages.next()).status, Serving.NOT_SERVING);
  const laterError = await new Promise<unknown>((resolve) => later.call.once('error', resolve));
  assert.ok(isServiceError(laterError) && laterError.code === GrpcStatus.UNAVAILABLE, String(laterError));
});

health.run();
