import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, startTestServer, type TestServer } from '../support/server.ts';
import { grpcCall } from '../support/grpc.ts';
import { sample } from '../support/metrics.ts';

const metrics = suite<{ server: TestServer }>('Prometheus /metrics: requests and latency by route, protocol and code; the analysis pool');
metrics.before(async (ctx) => {
  ctx.server = await startTestServer();
});
metrics.after(async (ctx) => {
  await ctx.server.stop();
});

/** The value of one series in the Prometheus text, or undefined when it is absent. */
const SEARCH = 'route="tms.v1.EventService.SearchEvents",protocol="rest"';

metrics('needs no key, is Prometheus text, and counts requests and latency by route, protocol and code', async ({ server }) => {
  const before = await call(server, 'GET', '/metrics', { key: null });
  assert.is(before.status, 200, before.text);
  assert.match(String(before.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  const ok = (text: string) => sample(text, 'tms_requests_total', `${SEARCH},code="ok"`) ?? 0;
  const bad = (text: string) => sample(text, 'tms_requests_total', `${SEARCH},code="invalid_argument"`) ?? 0;

  for (let i = 0; i < 3; i++) assert.is((await call(server, 'GET', '/v1/search-events', { body: { location: 'Paris', page_size: 1 } })).status, 200);
  assert.is((await call(server, 'GET', '/v1/search-events', { body: { time_range: 'not a range' } })).status, 400);
  assert.is((await grpcCall(server.port, 'tms.v1.EventService.SearchEvents', { location: 'Paris' })).codeName, 'ok');

  const after = (await call(server, 'GET', '/metrics', { key: null })).text;
  assert.is(ok(after) - ok(before.text), 3);
  assert.is(bad(after) - bad(before.text), 1);
  assert.ok((sample(after, 'tms_request_duration_seconds_count', `${SEARCH},code="ok"`) ?? 0) >= 3, 'latency observed per code');
  assert.ok(sample(after, 'tms_request_duration_seconds_count', `${SEARCH},code="invalid_argument"`)! >= 1);
  assert.ok(sample(after, 'tms_request_duration_seconds_bucket', `le="+Inf",${SEARCH},code="ok"`)! >= 3, 'histogram buckets');
  assert.ok(sample(after, 'tms_requests_total', 'route="tms.v1.EventService.SearchEvents",protocol="grpc",code="ok"')! >= 1, 'gRPC counted under its own protocol');
});

metrics('paths under a prefix route are one route: made-up console paths cannot make series without end', async ({ server }) => {
  const paths = Array.from({ length: 5 }, (_, i) => `/console/assets/made-up-${i}-${'a'.repeat(200)}`);
  for (const path of paths) assert.is((await call(server, 'GET', path, { key: null })).status, 404);
  const text = (await call(server, 'GET', '/metrics', { key: null })).text;
  assert.match(text, /tms_requests_total\{route="\/console\/\*",protocol="http",code="not_found"\} 5\n/);
  assert.not.match(text, /made-up/, 'no path becomes a label');
});

metrics('a scrape reads the request counts without moving them: two in a row agree, and with the latency count', async ({ server }) => {
  for (let i = 0; i < 2; i++) assert.is((await call(server, 'GET', '/v1/search-events', { body: { location: 'Rome', page_size: 1 } })).status, 200);
  const first = (await call(server, 'GET', '/metrics', { key: null })).text;
  const second = (await call(server, 'GET', '/metrics', { key: null })).text;
  const count = sample(first, 'tms_requests_total', `${SEARCH},code="ok"`);
  assert.ok(count !== undefined && count >= 2, `counted: ${count}`);
  assert.is(sample(second, 'tms_requests_total', `${SEARCH},code="ok"`), count);
  assert.is(sample(second, 'tms_request_duration_seconds_count', `${SEARCH},code="ok"`), count);
  assert.is(sample(second, 'tms_requests_total', 'route="/metrics",protocol="http",code="ok"')! - sample(first, 'tms_requests_total', 'route="/metrics",protocol="http",code="ok"')!, 1, 'the first scrape is counted by the second');
});

metrics('reports the analysis worker pool: threads, queue and completed tasks', async ({ server }) => {
  const before = (await call(server, 'GET', '/metrics', { key: null })).text;
  assert.is((await call(server, 'GET', '/v1/check-paradox', { body: { timeline_id: 'primary' } })).status, 200);
  const after = (await call(server, 'GET', '/metrics', { key: null })).text;
  assert.ok(sample(after, 'tms_analysis_threads', '')! >= 1);
  assert.is(sample(after, 'tms_analysis_queue_size', ''), 0, 'nothing waiting once the check has answered');
  const completed = (text: string, ran: string) => sample(text, 'tms_analysis_tasks_completed_total', `ran="${ran}"`)!;
  assert.is(completed(after, 'inline') - completed(before, 'inline'), 1, 'primary\'s check is small: it runs inline');
  assert.is(completed(after, 'worker'), completed(before, 'worker'), 'and no worker runs it');
  assert.ok(sample(after, 'tms_process_cpu_seconds_total', '') !== undefined, 'default process metrics');
});

metrics('counts hits and misses of the search page, causal graph and snapshot caches, and their bytes within budget', async ({ server }) => {
  const before = (await call(server, 'GET', '/metrics', { key: null })).text;
  const search = { location: 'Rome', time_range: '0001-01-01T00:00:00Z/0999-01-01T00:00:00Z', page_size: 3 };
  for (let i = 0; i < 3; i++) assert.is((await call(server, 'GET', '/v1/search-events', { body: search })).status, 200);
  for (let i = 0; i < 2; i++) assert.is((await call(server, 'GET', '/v1/check-paradox', { body: { timeline_id: 'primary' } })).status, 200);
  const after = (await call(server, 'GET', '/metrics', { key: null })).text;
  const moved = (name: string, cache: string) => (sample(after, name, `cache="${cache}"`) ?? 0) - (sample(before, name, `cache="${cache}"`) ?? 0);
  assert.is(moved('tms_cache_misses_total', 'search_page'), 1, 'the first search is looked up in vain');
  assert.is(moved('tms_cache_hits_total', 'search_page'), 2, 'the same search again is answered from the cache');
  assert.ok(moved('tms_cache_hits_total', 'causal_graph') >= 1, 'the second check reuses the first one\'s graph');
  for (const cache of ['search_page', 'causal_graph', 'genesis_snapshot']) {
    const bytes = sample(after, 'tms_cache_bytes', `cache="${cache}"`);
    assert.ok(bytes !== undefined && bytes <= sample(after, 'tms_cache_max_bytes', `cache="${cache}"`)!, `${cache}: bytes within its budget`);
    assert.ok(sample(after, 'tms_cache_entries', `cache="${cache}"`) !== undefined, `${cache}: entries reported`);
  }
  assert.match(after, /# TYPE tms_cache_hits_total counter/);
});

metrics('versions at one place share their words through the location_words cache, counted and within its budget', async ({ server }) => {
  const before = (await call(server, 'GET', '/metrics', { key: null })).text;
  const changed = await call(server, 'POST', '/v1/manipulate-event', {
    body: { event_id: 'storming-of-the-bastille', new_outcome: { description: 'shared words', changes: [] } },
  });
  assert.is(changed.status, 200);
  const after = (await call(server, 'GET', '/metrics', { key: null })).text;
  const moved = (name: string) => (sample(after, name, 'cache="location_words"') ?? 0) - (sample(before, name, 'cache="location_words"') ?? 0);
  // The event's genesis marker, its superseded version and the new event are at one place: one lookup finds it made.
  assert.ok(moved('tms_cache_hits_total') >= 2, 'the place is looked up again by the later versions');
  const bytes = sample(after, 'tms_cache_bytes', 'cache="location_words"');
  assert.ok(bytes !== undefined && bytes > 0 && bytes <= sample(after, 'tms_cache_max_bytes', 'cache="location_words"')!);
  assert.ok(sample(after, 'tms_cache_entries', 'cache="stored_words"') !== undefined, 'the stored words are reported too');
});

metrics('an anchor checked again and adjusted is answered from its kept noise, counted in the anchor_noise cache', async ({ server }) => {
  const set = await call(server, 'POST', '/v1/set-anchor', { body: { timestamp: '2025-01-01T00:00:00Z', accuracy: 'nanosecond' } });
  assert.is(set.status, 200);
  const anchorId = (set.json as { anchor_id: string }).anchor_id;
  const before = (await call(server, 'GET', '/metrics', { key: null })).text;
  const first = await call(server, 'GET', '/v1/check-anchor-stability', { body: { anchor_id: anchorId } });
  const again = await call(server, 'GET', '/v1/check-anchor-stability', { body: { anchor_id: anchorId } });
  assert.is(first.status, 200);
  assert.equal(again.json, first.json, 'the same anchor and conditions, the same answer');
  const adjust = { anchor_id: anchorId, new_environment: { temperature: '60°C', humidity: '95%', em_field_strength: '2T' } };
  const adjusted = await call(server, 'POST', '/v1/adjust-anchor', { body: adjust });
  assert.is(adjusted.status, 200);
  const error = (answer: { json: unknown }) => (answer.json as { figures: { predicted_error_seconds: number } }).figures.predicted_error_seconds;
  assert.ok(error(adjusted) > 10 * error(first), 'harsh conditions still weigh on the kept noise');
  assert.is.not((adjusted.json as { status: string }).status, 'Stable');
  const after = (await call(server, 'GET', '/metrics', { key: null })).text;
  const moved = (name: string) => (sample(after, name, 'cache="anchor_noise"') ?? 0) - (sample(before, name, 'cache="anchor_noise"') ?? 0);
  assert.is(moved('tms_cache_misses_total'), 1, 'simulated once, at the first check');
  assert.is(moved('tms_cache_hits_total'), 2, 'the check again and the adjustment');
  assert.ok(sample(after, 'tms_cache_bytes', 'cache="anchor_noise"')! <= sample(after, 'tms_cache_max_bytes', 'cache="anchor_noise"')!);
});

metrics.run();
