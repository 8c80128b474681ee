import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, startTestServer, type HttpResult, type TestServer } from '../support/server.ts';
import { compareInstants, parseInstant } from '../../src/time/index.ts';

/**
 * Response fields and error shapes over real sockets that other files never assert: temporal anchors as the
 * spec shows them, the `status` fields of writes, tutorial scan-events, and the x-request-id header everywhere.
 */
const responses = suite<{ server: TestServer }>('REST: anchors, response fields, request ids');
responses.before(async (ctx) => {
  ctx.server = await startTestServer();
});
responses.after(async (ctx) => {
  await ctx.server.stop();
});

const STATUSES = ['Stable', 'Unstable', 'Critical'];
const ENVIRONMENT = { temperature: '22°C', humidity: '45%', em_field_strength: '0.5T' };
const QUANTUM_STATE = { qubit_configuration: '1010', superposition_stability: '99.9%' };
const FULL_ANCHOR = {
  timestamp: '2025-01-01T00:00:00.000001Z',
  description: 'New Year anchor',
  accuracy: 'nanosecond',
  environment: ENVIRONMENT,
  quantum_state: QUANTUM_STATE,
};

async function ok(pending: Promise<HttpResult>): Promise<HttpResult> {
  const res = await pending;
  assert.is(res.status, 200, res.text);
  return res;
}

/** An error in the one shape every route uses, with the field it is about named first in the message. */
function assertFieldError(res: HttpResult, status: number, code: string, field: string): void {
  assert.is(res.status, status, res.text);
  assert.is(res.json.code, code, res.text);
  assert.type(res.json.message, 'string');
  assert.ok(res.json.message.startsWith(`${field}:`), `message should name ${field}: ${res.json.message}`);
}

function assertRequestId(res: HttpResult): string {
  const id = res.headers['x-request-id'];
  assert.type(id, 'string', `x-request-id missing on a ${res.status} response`);
  assert.match(id as string, /^[\w.:-]{1,128}$/);
  return id as string;
}

async function setAnchor(server: TestServer, body: Record<string, unknown>): Promise<HttpResult> {
  return ok(call(server, 'POST', '/v1/set-anchor', { body }));
}

// --- 1. set-anchor ----------------------------------------------------------------------------------------

responses('set-anchor, minimal spec shape: anchor_id, status, timestamp; nothing echoed that was not sent', async ({ server }) => {
  const res = await setAnchor(server, { timestamp: '2025-01-01T00:00:00.000001Z', description: 'New Year anchor' });
  assert.match(res.json.anchor_id, /^anc_/);
  assert.type(res.json.status, 'string');
  assert.ok(res.json.status.length > 0);
  assert.is(res.json.timestamp, '2025-01-01T00:00:00.000001Z', 'the microsecond fraction comes back as sent');
  assert.not.ok('accuracy' in res.json, `accuracy was not sent: ${res.text}`);
  assert.not.ok('environment' in res.json, `environment was not sent: ${res.text}`);
  assert.not.ok('quantum_state' in res.json, `quantum_state was not sent: ${res.text}`);
});

responses('set-anchor, full spec shape: accuracy, environment and quantum_state echoed exactly', async ({ server }) => {
  const res = await setAnchor(server, FULL_ANCHOR);
  assert.match(res.json.anchor_id, /^anc_/);
  assert.type(res.json.status, 'string');
  assert.ok(res.json.status.length > 0);
  assert.is(res.json.timestamp, FULL_ANCHOR.timestamp);
  assert.is(res.json.accuracy, 'nanosecond');
  assert.equal(res.json.environment, ENVIRONMENT);
  assert.equal(res.json.quantum_state, QUANTUM_STATE);
});

responses('set-anchor echoes a nine-digit fraction unchanged, and only the parts that were sent', async ({ server }) => {
  const nine = await setAnchor(server, { timestamp: '2025-01-01T00:00:00.123456789Z', description: 'nanos', accuracy: 'microsecond' });
  assert.is(nine.json.timestamp, '2025-01-01T00:00:00.123456789Z');
  assert.is(nine.json.accuracy, 'microsecond', 'an accuracy that was sent is echoed even when it is the default');
  assert.not.ok('environment' in nine.json);
  const offset = await setAnchor(server, { timestamp: '2025-01-01T02:00:00.000001+02:00', description: 'offset' });
  assert.is(offset.json.timestamp, '2025-01-01T00:00:00.000001Z', 'an offset is normalised to UTC, fraction kept');
  const ides = await setAnchor(server, { timestamp: '-000044-03-15T12:00:00Z', description: 'the Ides of March' });
  assert.is(ides.json.timestamp, '-000044-03-15T12:00:00Z', 'expanded years round-trip');

  const envOnly = await setAnchor(server, { timestamp: '2025-06-01T12:00:00Z', description: 'env only', environment: { temperature: '295.15 K' } });
  assert.equal(envOnly.json.environment, { temperature: '295.15 K' });
  assert.not.ok('accuracy' in envOnly.json);
  assert.not.ok('quantum_state' in envOnly.json);

  const quantumOnly = await setAnchor(server, { timestamp: '2025-06-01T12:00:00Z', description: 'quantum only', quantum_state: QUANTUM_STATE });
  assert.equal(quantumOnly.json.quantum_state, QUANTUM_STATE);
  assert.not.ok('environment' in quantumOnly.json);
});

// --- 2. check-anchor-stability -------------------------------------------------------------------------------

responses('check-anchor-stability with a JSON body and with a query string: same status, environment as conditions, deterministic', async ({ server }) => {
  const anchorId = (await setAnchor(server, FULL_ANCHOR)).json.anchor_id;
  const viaBody = await ok(call(server, 'GET', '/v1/check-anchor-stability', { body: { anchor_id: anchorId } }));
  assert.ok(STATUSES.includes(viaBody.json.status), viaBody.text);
  assert.equal(viaBody.json.current_conditions, ENVIRONMENT);

  const viaQuery = await ok(call(server, 'GET', `/v1/check-anchor-stability?${new URLSearchParams({ anchor_id: anchorId })}`));
  assert.ok(STATUSES.includes(viaQuery.json.status), viaQuery.text);
  assert.equal(viaQuery.json.current_conditions, ENVIRONMENT);

  const again = await ok(call(server, 'GET', '/v1/check-anchor-stability', { body: { anchor_id: anchorId } }));
  assert.equal(again.json, viaBody.json, 'the same anchor and conditions give the same answer');
  assert.equal(viaQuery.json, viaBody.json, 'body and query string ask the same question');
});

responses('check-anchor-stability of an anchor set without environment reports empty current_conditions', async ({ server }) => {
  const anchorId = (await setAnchor(server, { timestamp: '2025-01-01T00:00:00Z', description: 'bare' })).json.anchor_id;
  const res = await ok(call(server, 'GET', '/v1/check-anchor-stability', { body: { anchor_id: anchorId } }));
  assert.ok(STATUSES.includes(res.json.status), res.text);
  assert.equal(res.json.current_conditions, {});
});

// --- 3. adjust-anchor ----------------------------------------------------------------------------------------

responses('adjust-anchor with new_environment: status and new_conditions; a later check sees the new conditions', async ({ server }) => {
  const anchorId = (await setAnchor(server, FULL_ANCHOR)).json.anchor_id;
  const newEnvironment = { temperature: '20°C', humidity: '40%', em_field_strength: '0.3T' };
  const adjusted = await ok(call(server, 'POST', '/v1/adjust-anchor', { body: { anchor_id: anchorId, new_environment: newEnvironment } }));
  assert.ok(STATUSES.includes(adjusted.json.status), adjusted.text);
  assert.equal(adjusted.json.new_conditions, newEnvironment);

  const checked = await ok(call(server, 'GET', '/v1/check-anchor-stability', { body: { anchor_id: anchorId } }));
  assert.equal(checked.json.current_conditions, newEnvironment);
  assert.is(checked.json.status, adjusted.json.status, 'adjust and check compute the same stability');
});

responses('adjust-anchor into extreme conditions makes a nanosecond anchor Critical', async ({ server }) => {
  const anchorId = (await setAnchor(server, FULL_ANCHOR)).json.anchor_id;
  const hot = { temperature: '10000 K', humidity: '100%', em_field_strength: '100 T' };
  const adjusted = await ok(call(server, 'POST', '/v1/adjust-anchor', { body: { anchor_id: anchorId, new_environment: hot } }));
  assert.is(adjusted.json.status, 'Critical', adjusted.text);
  assert.equal(adjusted.json.new_conditions, hot);
});

// --- 4. bad anchor inputs ------------------------------------------------------------------------------------

const BAD_ANCHORS: Array<[string, Record<string, unknown>]> = [
  ['environment.temperature', { environment: { ...ENVIRONMENT, temperature: '22 parsecs' } }],
  ['environment.humidity', { environment: { ...ENVIRONMENT, humidity: '140%' } }],
  ['environment.em_field_strength', { environment: { ...ENVIRONMENT, em_field_strength: '0.5' } }],
  ['quantum_state.qubit_configuration', { quantum_state: { ...QUANTUM_STATE, qubit_configuration: '10a1' } }],
  ['accuracy', { accuracy: 'picosecond' }],
  ['timestamp', { timestamp: 'yesterday' }],
];

for (const [field, change] of BAD_ANCHORS) {
  responses(`set-anchor refuses a bad ${field}: 400 invalid_argument naming it`, async ({ server }) => {
    const res = await call(server, 'POST', '/v1/set-anchor', { body: { ...FULL_ANCHOR, ...change } });
    assertFieldError(res, 400, 'invalid_argument', field);
  });
}

responses('check-anchor-stability of an unknown anchor: 404 not_found naming the id', async ({ server }) => {
  const res = await call(server, 'GET', '/v1/check-anchor-stability', { body: { anchor_id: 'anc_never_set' } });
  assert.is(res.status, 404, res.text);
  assert.is(res.json.code, 'not_found');
  assert.ok(res.json.message.includes('anc_never_set'), res.json.message);
});

responses('adjust-anchor without new_environment: 400 naming new_environment', async ({ server }) => {
  const anchorId = (await setAnchor(server, FULL_ANCHOR)).json.anchor_id;
  const res = await call(server, 'POST', '/v1/adjust-anchor', { body: { anchor_id: anchorId } });
  assertFieldError(res, 400, 'invalid_argument', 'new_environment');
});

responses('adjust-anchor with a bad unit names the field under new_environment', async ({ server }) => {
  const anchorId = (await setAnchor(server, FULL_ANCHOR)).json.anchor_id;
  const res = await call(server, 'POST', '/v1/adjust-anchor', {
    body: { anchor_id: anchorId, new_environment: { ...ENVIRONMENT, temperature: '22 parsecs' } },
  });
  assertFieldError(res, 400, 'invalid_argument', 'new_environment.temperature');
  const unchanged = await ok(call(server, 'GET', '/v1/check-anchor-stability', { body: { anchor_id: anchorId } }));
  assert.equal(unchanged.json.current_conditions, ENVIRONMENT, 'a refused adjustment writes nothing');
});

// --- 5. status fields of writes, scan-events -------------------------------------------------------------------

responses('manipulate-event and revert-event report status; revert returns original_event_id', async ({ server }) => {
  const branch = await ok(call(server, 'POST', '/v1/create-timeline', { body: { base_timeline_id: 'primary', description: 'status fields' } }));
  const timelineId = branch.json.timeline_id;
  const manipulated = await ok(
    call(server, 'POST', '/v1/manipulate-event', {
      body: {
        event_id: 'storming-of-the-bastille',
        new_outcome: { description: 'The garrison surrenders peacefully.', changes: [{ action: 'negotiate', time: '1789-07-14T10:00:00Z' }] },
        safety_check: true,
        timeline_id: timelineId,
      },
    }),
  );
  assert.type(manipulated.json.status, 'string');
  assert.ok(manipulated.json.status.length > 0);
  assert.match(manipulated.json.new_event_id, /^evt_/);
  assert.is(manipulated.json.description, 'The garrison surrenders peacefully.');

  const reverted = await ok(call(server, 'POST', '/v1/revert-event', { body: { event_id: manipulated.json.new_event_id } }));
  assert.type(reverted.json.status, 'string');
  assert.ok(reverted.json.status.length > 0);
  assert.is(reverted.json.original_event_id, 'storming-of-the-bastille');
});

responses('create-parallel-timeline returns timeline_id, status and description', async ({ server }) => {
  const res = await ok(
    call(server, 'POST', '/v1/create-parallel-timeline', {
      body: { base_timeline_id: 'primary', description: 'Parallel timeline for experiments.', variation: 'No printing press' },
    }),
  );
  assert.match(res.json.timeline_id, /^tl_/);
  assert.type(res.json.status, 'string');
  assert.ok(res.json.status.length > 0);
  assert.is(res.json.description, 'Parallel timeline for experiments.');
});

responses('POST /api/v1/scan-events: real Rome events across the BC/AD boundary, in time order', async ({ server }) => {
  const range = { start: '-000100-01-01T00:00:00Z', end: '0100-01-01T00:00:00Z' };
  const res = await ok(call(server, 'POST', '/api/v1/scan-events', { body: { location: 'Rome', time_range: `${range.start}/${range.end}` } }));
  const events: Array<{ event_id: string; time: string; location: string; description: string }> = res.json.events;
  assert.ok(Array.isArray(events) && events.length > 0, res.text);
  for (const event of events) {
    assert.ok(/\brome\b/i.test(event.location), event.location);
    assert.type(event.description, 'string');
    const time = parseInstant(event.time);
    assert.ok(compareInstants(time, parseInstant(range.start)) >= 0 && compareInstants(time, parseInstant(range.end)) <= 0, event.time);
  }
  for (let i = 1; i < events.length; i++) {
    assert.ok(compareInstants(parseInstant(events[i - 1]!.time), parseInstant(events[i]!.time)) <= 0, `${events[i - 1]!.time} then ${events[i]!.time}`);
  }
  const ids = events.map((e) => e.event_id);
  for (const known of ['assassination-of-julius-caesar', 'octavian-named-augustus', 'great-fire-of-rome', 'death-of-nero']) {
    assert.ok(ids.includes(known), `${known} missing from ${ids.join(', ')}`);
  }
  assert.ok(ids.indexOf('assassination-of-julius-caesar') < ids.indexOf('great-fire-of-rome'), '44 BC comes before AD 64');
});

responses('POST /api/v1/travel in the spec\'s form: status, the arrival as an event, and the events nearby', async ({ server }) => {
  const res = await ok(call(server, 'POST', '/api/v1/travel', { body: { destination_time: '1969-07-20T20:17:40Z', location: 'Houston, United States' } }));
  assert.equal(Object.keys(res.json).sort(), ['arrival', 'nearby_events', 'status']);
  assert.is(res.json.status, 'Arrived at Houston, United States on 1969-07-20T20:17:40Z');
  assert.is(res.json.arrival.time, '1969-07-20T20:17:40Z');
  assert.is(res.json.arrival.location, 'Houston, United States');
  assert.is(res.json.arrival.timeline_id, 'primary');
  assert.match(res.json.arrival.event_id, /^evt_/);
  assert.ok(Array.isArray(res.json.nearby_events));
  for (const event of res.json.nearby_events) {
    assert.match(event.location, /houston/i);
    const hours = Math.abs(Date.parse(event.time) - Date.parse('1969-07-20T20:17:40Z')) / 3_600_000;
    assert.ok(hours <= 24, `${event.event_id} at ${event.time} is within a day of the arrival`);
  }
});

responses('travel to the first and last supported days arrives once, its nearby window cut at the end of time', async ({ server }) => {
  for (const time of ['+999999999-12-31T12:00:00Z', '-999999999-01-01T06:00:00Z']) {
    const location = `Edge of time ${time.slice(0, 1) === '+' ? 'late' : 'early'}`;
    const res = await ok(call(server, 'POST', '/api/v1/travel', { body: { destination_time: time, location } }));
    assert.is(res.json.arrival.time, time);
    assert.equal(res.json.nearby_events, []);
    const found = await ok(call(server, 'GET', '/v1/search-events', { body: { location } }));
    assert.equal(found.json.events.map((event: { event_id: string }) => event.event_id), [res.json.arrival.event_id], 'one arrival');
  }
});

responses('search results carry times as ISO 8601 UTC with Z, and the fields the spec names', async ({ server }) => {
  const res = await ok(call(server, 'GET', '/v1/search-events', { body: { location: 'Paris', time_range: '1700-01-01T00:00:00Z/1900-01-01T00:00:00Z' } }));
  assert.ok(res.json.events.length > 0);
  for (const event of res.json.events) {
    assert.match(event.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/, event.time);
    for (const field of ['event_id', 'description', 'time', 'location']) assert.type(event[field], 'string', `${field} of ${event.event_id}`);
  }
});

responses('Content-Type: application/json on a request without a body, as the spec has every request carry it', async ({ server }) => {
  const json = { 'content-type': 'application/json' };
  const list = await ok(call(server, 'GET', '/timelines', { headers: json }));
  assert.ok(list.json.timelines.some((t: { timeline_id: string }) => t.timeline_id === 'primary'));
  const created = await ok(call(server, 'POST', '/timelines', { body: { base_timeline_id: 'primary', description: 'to delete' } }));
  const deleted = await ok(call(server, 'DELETE', `/timeline/${created.json.timeline_id}`, { headers: json }));
  assert.type(deleted.json.status, 'string');
  const gone = await call(server, 'GET', `/timeline/${created.json.timeline_id}`, { headers: json });
  assert.is(gone.status, 404, gone.text);
});

responses('check-timeline compares with the event as primary first recorded it: a change on primary itself is altered, and a branch made before it is intact', async ({ server }) => {
  const before = await ok(call(server, 'POST', '/v1/create-timeline', { body: { base_timeline_id: 'primary', description: 'before the change' } }));
  await ok(call(server, 'POST', '/api/v1/manipulate-event', { body: { event_id: 'moon-landing', action: 'reschedule', time: '1969-07-21T02:56:15Z' } }));

  const onPrimary = await ok(call(server, 'GET', '/api/v1/check-timeline', { body: { timeline_id: 'primary', significant_event: 'moon-landing' } }));
  assert.is(onPrimary.json.state, 'altered');
  assert.is(onPrimary.json.primary_event.event_id, 'moon-landing');
  assert.is(onPrimary.json.event.supersedes, 'moon-landing');
  assert.equal(onPrimary.json.differences, [{ field: 'time', primary_value: onPrimary.json.primary_event.time, timeline_value: '1969-07-21T02:56:15Z' }]);

  const onBranch = await ok(call(server, 'GET', '/api/v1/check-timeline', { body: { timeline_id: before.json.timeline_id, significant_event: 'moon-landing' } }));
  assert.is(onBranch.json.state, 'intact');
  assert.is(onBranch.json.event.event_id, 'moon-landing');
  assert.equal(onBranch.json.differences, []);
});

responses('check-timeline by text answers as by id: an event changed or prevented on primary is still intact on a branch made before', async ({ server }) => {
  const before = await ok(call(server, 'POST', '/v1/create-timeline', { body: { base_timeline_id: 'primary', description: 'before the changes' } }));
  const branch = before.json.timeline_id as string;
  await ok(call(server, 'POST', '/api/v1/manipulate-event', { body: { event_id: 'storming-of-the-bastille', action: 'reschedule', time: '1789-07-15T12:00:00Z' } }));
  await ok(call(server, 'POST', '/api/v1/manipulate-event', { body: { event_id: 'fall-of-robespierre', action: 'prevent', time: '1794-07-27T12:00:00Z' } }));
  const check = async (timelineId: string, significant: string) =>
    (await ok(call(server, 'GET', '/api/v1/check-timeline', { body: { timeline_id: timelineId, significant_event: significant } }))).json;
  for (const [id, text] of [['storming-of-the-bastille', 'Bastille'], ['fall-of-robespierre', 'robespierre']] as const) {
    const byText = await check(branch, text);
    assert.is(byText.state, 'intact', `${text} on the branch: ${byText.status}`);
    assert.is(byText.primary_event.event_id, id);
    assert.equal(byText, await check(branch, id), `${text} and ${id} give one answer on the branch`);
  }
  assert.equal(await check('primary', 'Bastille'), await check('primary', 'storming-of-the-bastille'), 'text and id give one answer on primary');
  assert.is((await check('primary', 'Bastille')).state, 'altered');
  // Text matches events that happen on primary or on the timeline asked about: one prevented on both is found by id alone.
  assert.is((await check('primary', 'fall-of-robespierre')).state, 'absent');
  assert.equal(await check('primary', 'robespierre'), {
    status: 'No event matching "robespierre" happens on primary or on timeline "primary"',
    state: 'absent',
    differences: [],
  });
  const nowhere = await check(branch, 'no such words anywhere');
  assert.equal(nowhere, { status: `No event matching "no such words anywhere" happens on primary or on timeline "${branch}"`, state: 'absent', differences: [] });
});

// --- 6. x-request-id ------------------------------------------------------------------------------------------

responses('x-request-id on a 400, a 401, a 404 (unknown id) and a 404 (unknown route)', async ({ server }) => {
  const bad = await call(server, 'POST', '/v1/set-anchor', { body: { timestamp: 'yesterday', description: 'x' } });
  assert.is(bad.status, 400);
  assertRequestId(bad);
  const unauthenticated = await call(server, 'GET', '/v1/search-events', { key: null, body: { location: 'Paris' } });
  assert.is(unauthenticated.status, 401);
  assert.is(unauthenticated.json.code, 'unauthenticated');
  assertRequestId(unauthenticated);
  const unknownId = await call(server, 'GET', '/v1/check-anchor-stability', { body: { anchor_id: 'anc_missing' } });
  assert.is(unknownId.status, 404);
  assertRequestId(unknownId);
  const unknownRoute = await call(server, 'GET', '/v1/no-such-route');
  assert.is(unknownRoute.status, 404);
  assert.is(unknownRoute.json.code, 'not_found');
  assertRequestId(unknownRoute);
});

responses('x-request-id on a Connect RPC response and on /healthz', async ({ server }) => {
  const connect = await call(server, 'POST', '/tms.v1.EventService/SearchEvents', { body: { location: 'Paris' } });
  assert.is(connect.status, 200, connect.text);
  assert.ok(Array.isArray(connect.json.events) && connect.json.events.length > 0, connect.text);
  assertRequestId(connect);
  const health = await call(server, 'GET', '/healthz', { key: null });
  assert.is(health.status, 200, health.text);
  assertRequestId(health);
});

responses('a valid client x-request-id is echoed, on success and on error, over REST, Connect and /healthz', async ({ server }) => {
  const sent = { headers: { 'x-request-id': 'client-req.42:abc' } };
  const success = await call(server, 'GET', '/v1/search-events', { ...sent, body: { location: 'Paris' } });
  assert.is(success.status, 200);
  assert.is(success.headers['x-request-id'], 'client-req.42:abc');
  const failure = await call(server, 'GET', '/v1/check-anchor-stability', { ...sent, body: { anchor_id: 'anc_missing' } });
  assert.is(failure.status, 404);
  assert.is(failure.headers['x-request-id'], 'client-req.42:abc');
  const connect = await call(server, 'POST', '/tms.v1.EventService/SearchEvents', { ...sent, body: { location: 'Paris' } });
  assert.is(connect.headers['x-request-id'], 'client-req.42:abc');
  const health = await call(server, 'GET', '/healthz', { ...sent, key: null });
  assert.is(health.headers['x-request-id'], 'client-req.42:abc');
});

responses('an invalid client x-request-id (too long, or with spaces) is replaced by a generated one', async ({ server }) => {
  for (const invalid of ['r'.repeat(200), 'has spaces in it']) {
    const res = await call(server, 'GET', '/v1/search-events', { headers: { 'x-request-id': invalid }, body: { location: 'Paris' } });
    assert.is(res.status, 200, res.text);
    const id = assertRequestId(res);
    assert.is.not(id, invalid);
  }
  const first = assertRequestId(await call(server, 'GET', '/healthz', { key: null, headers: { 'x-request-id': 'r'.repeat(200) } }));
  const second = assertRequestId(await call(server, 'GET', '/healthz', { key: null, headers: { 'x-request-id': 'r'.repeat(200) } }));
  assert.is.not(first, second, 'each replacement is freshly generated');
});

responses.run();
