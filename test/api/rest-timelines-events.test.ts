import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN_KEY, call, startTestServer, type TestServer } from '../support/server.ts';
import { createKey } from '../support/accounts.ts';

const rest = suite<{ server: TestServer }>('REST: events and timelines, exact spec shapes');
rest.before(async (ctx) => {
  ctx.server = await startTestServer();
});
rest.after(async (ctx) => {
  await ctx.server.stop();
});

const PARIS_1789 = { location: 'Paris, France', time_range: '1789-01-01T00:00:00Z/1799-12-31T23:59:59Z' };

rest('GET /v1/search-events with a JSON body returns real catalogue events in time order', async ({ server }) => {
  const res = await call(server, 'GET', '/v1/search-events', { body: PARIS_1789 });
  assert.is(res.status, 200, res.text);
  assert.ok(res.json.events.length > 0, 'the seeded catalogue has events in Paris in the 1790s');
  for (const event of res.json.events) {
    assert.ok(/paris/i.test(event.location), event.location);
    assert.ok(event.time >= '1789' && event.time < '1800', event.time);
    assert.type(event.event_id, 'string');
    assert.type(event.description, 'string');
  }
  const times = res.json.events.map((e: { time: string }) => e.time);
  assert.equal(times, [...times].sort());
  assert.ok(typeof res.headers['x-request-id'] === 'string' && res.headers['x-request-id'].length > 0);
});

rest('GET /v1/search-events takes the same fields from the query string', async ({ server }) => {
  const query = new URLSearchParams(PARIS_1789).toString();
  const viaQuery = await call(server, 'GET', `/v1/search-events?${query}`);
  const viaBody = await call(server, 'GET', '/v1/search-events', { body: PARIS_1789 });
  assert.is(viaQuery.status, 200, viaQuery.text);
  assert.equal(viaQuery.json.events, viaBody.json.events);
});

rest('location matching ignores case and accents, and a word finds a longer place', async ({ server }) => {
  const lower = await call(server, 'GET', '/v1/search-events?location=paris');
  const country = await call(server, 'GET', '/v1/search-events?location=FRANCE&page_size=200');
  assert.is(lower.status, 200);
  assert.ok(lower.json.events.length > 0);
  const ids = new Set(country.json.events.map((e: { event_id: string }) => e.event_id));
  for (const e of lower.json.events.filter((e: { location: string }) => /france/i.test(e.location))) assert.ok(ids.has(e.event_id));
});

rest('letters without a decomposition match their plain spelling: kizilirmak finds Kızılırmak', async ({ server }) => {
  const found = await Promise.all(
    ['Kızılırmak', 'kizilirmak', 'KIZILIRMAK'].map(async (location) => {
      const res = await call(server, 'GET', '/v1/search-events', { body: { location, page_size: 50 } });
      assert.is(res.status, 200, res.text);
      return res.json.events.map((e: { location: string }) => e.location);
    }),
  );
  assert.ok(found[0].length > 0);
  assert.ok(found[0].every((location: string) => location.includes('Kızılırmak')));
  assert.equal(found[1], found[0]);
  assert.equal(found[2], found[0]);
});

rest('pagination: pages do not overlap and the last page has an empty token', async ({ server }) => {
  const seen: string[] = [];
  let token = '';
  for (let pages = 0; pages < 100; pages++) {
    const res = await call(server, 'GET', '/v1/search-events', { body: { location: 'France', page_size: 3, page_token: token } });
    assert.is(res.status, 200, res.text);
    seen.push(...res.json.events.map((e: { event_id: string }) => e.event_id));
    token = res.json.next_page_token;
    if (!token) break;
  }
  assert.is(token, '');
  assert.is(new Set(seen).size, seen.length);
  const all = await call(server, 'GET', '/v1/search-events', { body: { location: 'France', page_size: 1000 } });
  assert.equal(seen, all.json.events.map((e: { event_id: string }) => e.event_id));
});

rest('manipulate on an alternate timeline, primary untouched; revert restores the original', async ({ server }) => {
  const created = await call(server, 'POST', '/v1/create-timeline', {
    body: { base_timeline_id: 'primary', description: 'Alternate timeline for testing.' },
  });
  assert.is(created.status, 200, created.text);
  assert.type(created.json.timeline_id, 'string');
  assert.type(created.json.status, 'string');
  assert.is(created.json.description, 'Alternate timeline for testing.');
  const timelineId = created.json.timeline_id;

  const [target] = (await call(server, 'GET', '/v1/search-events', { body: PARIS_1789 })).json.events;
  const manipulated = await call(server, 'POST', '/v1/manipulate-event', {
    body: {
      event_id: target.event_id,
      new_outcome: { description: 'It rained all day; nobody came.', changes: [{ action: 'reschedule', time: '1800-01-01T00:00:00.123456789Z' }] },
      safety_check: false,
      timeline_id: timelineId,
    },
  });
  assert.is(manipulated.status, 200, manipulated.text);
  assert.is.not(manipulated.json.new_event_id, target.event_id);
  assert.is(manipulated.json.description, 'It rained all day; nobody came.');
  assert.is(manipulated.json.time, '1800-01-01T00:00:00.123456789Z', 'nine fractional digits survive');

  const onBranch = await call(server, 'GET', '/v1/search-events', { body: { ...PARIS_1789, timeline_id: timelineId } });
  assert.not.ok(onBranch.json.events.some((e: { event_id: string }) => e.event_id === target.event_id));
  const inherited = onBranch.json.events.filter((e: { event_id: string }) => e.event_id !== target.event_id);
  assert.ok(inherited.length > 0);
  assert.ok(inherited.every((e: { timeline_id: string }) => e.timeline_id === 'primary'), 'an unchanged event names the timeline it was written on');
  const written = await call(server, 'GET', '/v1/search-events', {
    body: { location: PARIS_1789.location, time_range: '1800-01-01T00:00:00Z/1800-01-02T00:00:00Z', timeline_id: timelineId },
  });
  assert.equal(
    written.json.events.map((e: { event_id: string; timeline_id: string }) => [e.event_id, e.timeline_id]),
    [[manipulated.json.new_event_id, timelineId]],
  );
  const onPrimary = await call(server, 'GET', '/v1/search-events', { body: PARIS_1789 });
  assert.ok(onPrimary.json.events.some((e: { event_id: string }) => e.event_id === target.event_id), 'primary keeps the original');

  const again = await call(server, 'POST', '/v1/manipulate-event', {
    body: { event_id: target.event_id, new_outcome: { description: 'x', changes: [] }, timeline_id: timelineId },
  });
  assert.is(again.status, 409, again.text);
  assert.is(again.json.code, 'aborted');
  assert.ok(again.json.message.includes(manipulated.json.new_event_id), again.json.message);

  const reverted = await call(server, 'POST', '/v1/revert-event', { body: { event_id: manipulated.json.new_event_id, timeline_id: timelineId } });
  assert.is(reverted.status, 200, reverted.text);
  assert.is(reverted.json.original_event_id, target.event_id);
  assert.type(reverted.json.status, 'string');
  const twice = await call(server, 'POST', '/v1/revert-event', { body: { event_id: manipulated.json.new_event_id, timeline_id: timelineId } });
  assert.is(twice.status, 400, twice.text);
  assert.is(twice.json.code, 'failed_precondition');
});

rest('revert-event with only event_id, as the spec shows it, reverts on the timeline the manipulation was made on', async ({ server }) => {
  const created = await call(server, 'POST', '/v1/create-timeline', { body: { base_timeline_id: 'primary', description: 'revert by id' } });
  const timelineId = created.json.timeline_id;
  const [target] = (await call(server, 'GET', '/v1/search-events', { body: PARIS_1789 })).json.events;
  const manipulated = await call(server, 'POST', '/v1/manipulate-event', {
    body: { event_id: target.event_id, new_outcome: { description: 'moved', changes: [{ action: 'reschedule', time: '1790-07-14T00:00:00Z' }] }, timeline_id: timelineId },
  });
  assert.is(manipulated.status, 200, manipulated.text);
  const moved = await call(server, 'GET', '/v1/search-events', {
    body: { location: PARIS_1789.location, time_range: '1790-01-01T00:00:00Z/1791-01-01T00:00:00Z', timeline_id: timelineId },
  });
  const written = moved.json.events.find((e: { event_id: string }) => e.event_id === manipulated.json.new_event_id);
  assert.is(written.created_by, 'admin', 'the event says who wrote it');
  assert.match(written.created_at, /^\d{4}-\d\d-\d\dT/);

  const reverted = await call(server, 'POST', '/v1/revert-event', { body: { event_id: manipulated.json.new_event_id } });
  assert.is(reverted.status, 200, reverted.text);
  assert.is(reverted.json.original_event_id, target.event_id);
  assert.is(reverted.json.timeline_id, timelineId);
  const onBranch = await call(server, 'GET', '/v1/search-events', { body: { ...PARIS_1789, timeline_id: timelineId } });
  assert.ok(onBranch.json.events.some((e: { event_id: string }) => e.event_id === target.event_id), 'the original is back on the branch');

  const unknown = await call(server, 'POST', '/v1/revert-event', { body: { event_id: 'evt_never_made' } });
  assert.is(unknown.status, 404, unknown.text);
  assert.is(unknown.json.code, 'not_found');
  assert.match(unknown.json.message, /evt_never_made/);
});

rest('revert-event on an original event says it is not a manipulation, with or without timeline_id, for any writer', async ({ server }) => {
  const { key } = await createKey(server, ADMIN_KEY, { name: 'writer', scopes: ['read', 'write'] });
  const [original] = (await call(server, 'GET', '/v1/search-events', { body: PARIS_1789 })).json.events;
  const requests = [
    { bearer: ADMIN_KEY, body: { event_id: original.event_id } },
    { bearer: ADMIN_KEY, body: { event_id: original.event_id, timeline_id: 'primary' } },
    { bearer: key, body: { event_id: original.event_id } },
  ];
  for (const { bearer, body } of requests) {
    const res = await call(server, 'POST', '/v1/revert-event', { body, key: bearer });
    assert.is(res.status, 400, res.text);
    assert.is(res.json.code, 'failed_precondition');
    assert.is(res.json.message, `event "${original.event_id}" is not a manipulation; only an event created by manipulate-event can be reverted`);
  }
  const still = (await call(server, 'GET', '/v1/search-events', { body: PARIS_1789 })).json.events[0];
  assert.equal(still, original, 'nothing changed');
});

rest('create-parallel-timeline stores and returns the variation', async ({ server }) => {
  const res = await call(server, 'POST', '/v1/create-parallel-timeline', {
    body: { base_timeline_id: 'primary', description: 'Parallel timeline for experiments.', variation: 'No printing press' },
  });
  assert.is(res.status, 200, res.text);
  assert.is(res.json.description, 'Parallel timeline for experiments.');
  const got = await call(server, 'GET', `/timeline/${res.json.timeline_id}`);
  assert.is(got.status, 200, got.text);
  assert.is(got.json.timeline.kind, 'parallel');
  assert.is(got.json.timeline.variation, 'No printing press');
  assert.is(got.json.timeline.base_timeline_id, 'primary');
});

rest('/timelines and /timeline/{id} work with and without /v1; delete refuses primary and bases', async ({ server }) => {
  for (const prefix of ['', '/v1']) {
    const made = await call(server, 'POST', `${prefix}/timelines`, { body: { base_timeline_id: 'primary', description: `made via ${prefix || '/'}` } });
    assert.is(made.status, 200, made.text);
    const id = made.json.timeline_id;
    const child = await call(server, 'POST', `${prefix}/timelines`, { body: { base_timeline_id: id, description: 'child', variation: 'v' } });
    assert.is(child.status, 200, child.text);
    assert.is(child.json.timeline.kind, 'parallel');
    const list = await call(server, 'GET', `${prefix}/timelines`);
    assert.is(list.status, 200);
    const ids = list.json.timelines.map((t: { timeline_id: string }) => t.timeline_id);
    assert.ok(ids.includes('primary') && ids.includes(id) && ids.includes(child.json.timeline_id));
    const refused = await call(server, 'DELETE', `${prefix}/timeline/${id}`);
    assert.is(refused.status, 400, refused.text);
    assert.is(refused.json.code, 'failed_precondition');
    assert.ok(refused.json.message.includes(child.json.timeline_id), refused.json.message);
    assert.is((await call(server, 'DELETE', `${prefix}/timeline/${child.json.timeline_id}`)).status, 200);
    assert.is((await call(server, 'DELETE', `${prefix}/timeline/${id}`)).status, 200);
    const gone = await call(server, 'GET', `${prefix}/timeline/${id}`);
    assert.is(gone.status, 404);
    assert.is(gone.json.code, 'not_found');
  }
  const primary = await call(server, 'DELETE', '/timeline/primary');
  assert.is(primary.status, 400);
  assert.is(primary.json.code, 'failed_precondition');
  assert.ok(primary.json.message.includes('primary'));
});

rest.run();
