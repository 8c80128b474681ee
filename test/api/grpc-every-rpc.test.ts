import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../support/server.ts';
import { grpcCall, type GrpcResult } from '../support/grpc.ts';
import { rpcMethods } from '../../src/server/connect/services.ts';

const grpc = suite<{ server: TestServer; called: Set<string> }>('gRPC: a real grpc-js client calls every RPC');
grpc.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.called = new Set();
});
grpc.after(async (ctx) => {
  await ctx.server.stop();
});

async function ok(ctx: { server: TestServer; called: Set<string> }, rpc: string, request: Record<string, unknown>): Promise<GrpcResult> {
  const result = await grpcCall(ctx.server.port, rpc, request);
  assert.is(result.codeName, 'ok', `${rpc}: ${result.codeName} ${result.message}`);
  ctx.called.add(rpc);
  return result;
}

grpc('events, timelines, paradoxes, anchors and tutorial RPCs answer over gRPC', async (ctx) => {
  const found = await ok(ctx, 'tms.v1.EventService.SearchEvents', { location: 'Rome', time_range: '-000100-01-01T00:00:00Z/0100-01-01T00:00:00Z' });
  assert.ok(found.json.events.length > 0, 'ancient Rome is a destination');
  await ok(ctx, 'tms.v1.TutorialService.ScanEvents', { location: 'Rome', time_range: '-000100-01-01T00:00:00Z/0100-01-01T00:00:00Z' });

  const alternate = await ok(ctx, 'tms.v1.TimelineService.CreateTimeline', { base_timeline_id: 'primary', description: 'grpc alternate' });
  const timelineId: string = alternate.json.timeline_id;
  await ok(ctx, 'tms.v1.TimelineService.CreateParallelTimeline', { base_timeline_id: timelineId, description: 'p', variation: 'v' });
  const inserted = await ok(ctx, 'tms.v1.TimelineService.InsertTimeline', { base_timeline_id: 'primary', description: 'i' });
  const listed = await ok(ctx, 'tms.v1.TimelineService.ListTimelines', {});
  assert.ok(listed.json.timelines.some((t: { timeline_id: string }) => t.timeline_id === timelineId));
  const got = await ok(ctx, 'tms.v1.TimelineService.GetTimeline', { timeline_id: timelineId });
  assert.is(got.json.timeline.kind, 'alternate');
  await ok(ctx, 'tms.v1.TimelineService.DeleteTimeline', { timeline_id: inserted.json.timeline_id });

  const eventId: string = found.json.events[0].event_id;
  const changed = await ok(ctx, 'tms.v1.EventService.ManipulateEvent', {
    event_id: eventId,
    new_outcome: { description: 'Rome stays a republic', changes: [{ action: 'observe', time: '-000043-03-15T12:00:00Z' }] },
    timeline_id: timelineId,
  });
  const reverted = await ok(ctx, 'tms.v1.EventService.RevertEvent', { event_id: changed.json.new_event_id, timeline_id: timelineId });
  assert.is(reverted.json.original_event_id, eventId);
  await ok(ctx, 'tms.v1.TutorialService.ManipulateEvent', { event_id: eventId, action: 'reschedule', time: '-000043-03-16T12:00:00Z', timeline_id: timelineId });

  const check = await ok(ctx, 'tms.v1.ParadoxService.CheckParadox', { timeline_id: 'primary' });
  assert.is(check.json.timeline_stability, 'Stable');
  assert.is(check.json.status, 'No paradoxes detected');
  await ok(ctx, 'tms.v1.TutorialService.MonitorParadox', { timeline_id: timelineId, time_range: '-000100-01-01T00:00:00Z/0100-01-01T00:00:00Z' });
  const intact = await ok(ctx, 'tms.v1.TutorialService.CheckTimeline', { timeline_id: timelineId, significant_event: eventId });
  assert.is(intact.json.state, 'altered');
  await ok(ctx, 'tms.v1.TutorialService.Travel', { destination_time: '-000043-03-15T11:00:00Z', location: 'Rome, Italy', timeline_id: timelineId });

  const anchor = await ok(ctx, 'tms.v1.AnchorService.SetAnchor', {
    timestamp: '2025-01-01T00:00:00.000001Z',
    description: 'New Year anchor',
    accuracy: 'nanosecond',
    environment: { temperature: '22°C', humidity: '45%', em_field_strength: '0.5T' },
    quantum_state: { qubit_configuration: '1010', superposition_stability: '99.9%' },
  });
  assert.is(anchor.json.timestamp, '2025-01-01T00:00:00.000001Z');
  await ok(ctx, 'tms.v1.AnchorService.CheckAnchorStability', { anchor_id: anchor.json.anchor_id });
  await ok(ctx, 'tms.v1.AnchorService.AdjustAnchor', {
    anchor_id: anchor.json.anchor_id,
    new_environment: { temperature: '20°C', humidity: '40%', em_field_strength: '0.3T' },
  });
});

grpc('saved console requests answer over gRPC: save, list, get by id and by share token, share, unshare, delete', async (ctx) => {
  const saved = await ok(ctx, 'tms.v1.ConsoleService.SaveRequest', {
    name: 'over gRPC',
    method: 'post',
    path: '/tms.v1.EventService/SearchEvents',
    headers: { 'Content-Type': 'application/json', Authorization: 'Bearer secret' },
    body: '{"location": "Rome"}',
  });
  const record = saved.json.saved_request;
  assert.is(record.method, 'POST');
  assert.equal(record.headers, { 'content-type': 'application/json' }, 'names lower-cased, the credential dropped');
  const listed = await ok(ctx, 'tms.v1.ConsoleService.ListSavedRequests', { page_size: 5 });
  assert.equal(listed.json.saved_requests.map((r: { id: string }) => r.id), [record.id]);
  assert.is((await ok(ctx, 'tms.v1.ConsoleService.GetSavedRequest', { id: record.id })).json.saved_request.body, '{"location": "Rome"}');
  const shared = await ok(ctx, 'tms.v1.ConsoleService.ShareSavedRequest', { id: record.id });
  const token: string = shared.json.saved_request.share_token;
  assert.match(token, /^shr_[\w-]{43}$/);
  assert.is((await ok(ctx, 'tms.v1.ConsoleService.GetSavedRequest', { share_token: token })).json.saved_request.id, record.id);
  await ok(ctx, 'tms.v1.ConsoleService.UnshareSavedRequest', { id: record.id });
  const gone = await grpcCall(ctx.server.port, 'tms.v1.ConsoleService.GetSavedRequest', { share_token: token });
  assert.is(gone.codeName, 'not_found');
  await ok(ctx, 'tms.v1.ConsoleService.DeleteSavedRequest', { id: record.id });
  const deleted = await grpcCall(ctx.server.port, 'tms.v1.ConsoleService.GetSavedRequest', { id: record.id });
  assert.is(deleted.codeName, 'not_found');
});

grpc('errors carry the same code and field-naming message as REST', async (ctx) => {
  const missing = await grpcCall(ctx.server.port, 'tms.v1.EventService.SearchEvents', {}, null);
  assert.is(missing.codeName, 'unauthenticated');
  const bad = await grpcCall(ctx.server.port, 'tms.v1.EventService.SearchEvents', { time_range: 'soon' });
  assert.is(bad.codeName, 'invalid_argument');
  assert.ok(bad.message.startsWith('time_range: '), bad.message);
  const unknown = await grpcCall(ctx.server.port, 'tms.v1.TimelineService.GetTimeline', { timeline_id: 'tl_missing' });
  assert.is(unknown.codeName, 'not_found');
});

grpc('every tms.v1 RPC outside accounts was called successfully above', (ctx) => {
  const expected = [...rpcMethods.keys()].filter((rpc) => rpc.startsWith('tms.v1.') && !rpc.startsWith('tms.v1.AccountService'));
  const missed = expected.filter((rpc) => !ctx.called.has(rpc));
  assert.equal(missed, []);
});

grpc.run();
