import * as assert from 'uvu/assert';
import { fromBinary } from '@bufbuild/protobuf';
import { ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport } from '@connectrpc/connect-node';
import { EventService } from '../../src/gen/tms/v1/event_service_pb.ts';
import { TimelineService } from '../../src/gen/tms/v1/timeline_service_pb.ts';
import { FieldViolationSchema } from '../../src/gen/tms/v1/error_details_pb.ts';
import { ParadoxSchema } from '../../src/gen/tms/v1/paradox_pb.ts';
import { call, startTestServer, type TestServer } from '../support/server.ts';
import { asAdmin, connectSuite } from '../support/connect.ts';
import { detailJson, typedDetail } from '../../src/server/error-details.ts';
import { toConnectError } from '../../src/server/errors.ts';
import { ApiError } from '../../src/domain/errors.ts';

const details = connectSuite<{ server: TestServer; branch: string }>('typed error details on every face');
details.before(async (ctx) => {
  ctx.server = await startTestServer();
  const created = await call(ctx.server, 'POST', '/v1/create-timeline', { body: { base_timeline_id: 'primary', description: 'details' } });
  ctx.branch = created.json.timeline_id;
});
details.after(async (ctx) => {
  await ctx.server.stop();
});

async function refusal(promise: Promise<unknown>): Promise<ConnectError> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, ConnectError);
    return error as ConnectError;
  }
  throw new Error('expected the call to fail');
}

// Moving Perry's arrival after the events it caused would add two causality violations.
const lateArrival = (timelineId: string) => ({
  eventId: 'perry-arrives-in-japan',
  newOutcome: { description: 'Perry arrives decades late.', changes: [{ action: 'reschedule', time: '1890-01-01T00:00:00Z' }] },
  safetyCheck: true,
  timelineId,
});

details('REST error bodies carry each detail as Connect error JSON: type, base64 message, readable debug', async ({ server }) => {
  const res = await call(server, 'GET', '/v1/search-events', { body: { time_range: 'yesterday', page_size: 'ten' } });
  assert.is(res.status, 400);
  const [first] = res.json.details as { type: string; value: string; debug: { field: string; description: string } }[];
  assert.is(first!.type, 'tms.v1.FieldViolation');
  const decoded = fromBinary(FieldViolationSchema, Buffer.from(first!.value, 'base64'));
  assert.is(decoded.field, first!.debug.field);
  assert.is(decoded.description, first!.debug.description);
  assert.equal(
    (res.json.details as { debug: { field: string } }[]).map((detail) => detail.debug.field).sort(),
    ['page_size', 'time_range'],
  );
});

for (const face of ['Connect', 'gRPC'] as const) {
  details(`${face}: invalid fields arrive as tms.v1.FieldViolation details`, async ({ server }) => {
    const transport =
      face === 'Connect'
        ? createConnectTransport({ baseUrl: server.url, httpVersion: '1.1', interceptors: [asAdmin] })
        : createGrpcTransport({ baseUrl: server.url, interceptors: [asAdmin] });
    const events = createClient(EventService, transport);
    const error = await refusal(events.searchEvents({ timeRange: '1800-01-01T00:00:00Z/1700-01-01T00:00:00Z' }));
    assert.is(error.code, 3, 'invalid_argument');
    const violations = error.findDetails(FieldViolationSchema);
    assert.is(violations.length, 1);
    assert.is(violations[0]!.field, 'time_range');
    assert.match(violations[0]!.description, /before/);
  });

  details(`${face}: a refused safety check lists each paradox as a tms.v1.Paradox detail`, async ({ server, branch }) => {
    const transport =
      face === 'Connect'
        ? createConnectTransport({ baseUrl: server.url, httpVersion: '1.1', interceptors: [asAdmin] })
        : createGrpcTransport({ baseUrl: server.url, interceptors: [asAdmin] });
    const error = await refusal(createClient(EventService, transport).manipulateEvent(lateArrival(branch)));
    assert.is(error.code, 9, 'failed_precondition');
    const paradoxes = error.findDetails(ParadoxSchema);
    assert.equal(
      paradoxes.map((paradox) => [paradox.kind, paradox.severity, paradox.eventIds[0]]),
      [
        ['causality_violation', 'critical', 'edo-renamed-tokyo'],
        ['causality_violation', 'critical', 'meiji-constitution'],
      ],
    );
    const timeline = await createClient(TimelineService, transport).getTimeline({ timelineId: branch });
    assert.is(timeline.timeline?.revision, 0, 'nothing was written');
  });
}

details('a detail whose debug does not fit its message still travels, as JSON only', () => {
  const odd = { type: 'tms.v1.RetryInfo', debug: { retry_after_seconds: 'soon' } };
  assert.is(typedDetail(odd), undefined);
  assert.equal(detailJson(odd), { type: 'tms.v1.RetryInfo', debug: { retry_after_seconds: 'soon' } });
  assert.is(toConnectError(new ApiError('resource_exhausted', 'slow down', [odd])).details.length, 0);
});

details.run();
