import { gzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import { ADMIN_KEY, call, startTestServer, type TestServer } from '../support/server.ts';

const errors = suite<{ server: TestServer }>('REST: every bad input gets a clear error in one shape');
errors.before(async (ctx) => {
  ctx.server = await startTestServer({ bodyLimitBytes: 64 * 1024 });
});
errors.after(async (ctx) => {
  await ctx.server.stop();
});

function expectError(res: { status: number; json: { code: string; message: string }; text: string }, status: number, code: string, field?: string) {
  assert.is(res.status, status, res.text);
  assert.is(res.json.code, code, res.text);
  assert.type(res.json.message, 'string');
  if (field) assert.ok(res.json.message.startsWith(`${field}: `), `message names ${field}: ${res.json.message}`);
}

/** The `tms.v1.FieldViolation` details of an error body, as `[field, description]`. */
const violations = (res: { json: { details?: { type: string; debug: { field: string; description: string } }[] } }) =>
  (res.json.details ?? []).map((d) => [d.type, d.debug.field, d.debug.description]);

errors('missing Authorization is 401 unauthenticated', async ({ server }) => {
  const res = await call(server, 'GET', '/v1/search-events?location=paris', { key: null });
  expectError(res, 401, 'unauthenticated');
  assert.match(res.json.message, /Authorization/);
});

errors('a wrong key is 401 unauthenticated', async ({ server }) => {
  expectError(await call(server, 'GET', '/v1/search-events?location=paris', { key: 'tms_not_a_real_key' }), 401, 'unauthenticated');
  expectError(await call(server, 'GET', '/v1/search-events', { headers: { authorization: 'Basic abc' } }), 401, 'unauthenticated');
});

errors('a 401 names the scheme it takes in WWW-Authenticate, on REST and Connect', async ({ server }) => {
  const rest = await call(server, 'GET', '/v1/search-events', { key: null });
  assert.is(rest.status, 401);
  assert.is(rest.headers['www-authenticate'], 'Bearer realm="tms"');
  const rpc = await call(server, 'POST', '/tms.v1.EventService/SearchEvents', { body: {}, key: 'tms_not_a_real_key' });
  assert.is(rpc.status, 401);
  assert.is(rpc.headers['www-authenticate'], 'Bearer realm="tms"');
  const zipped = await call(server, 'POST', '/tms.v1.EventService/SearchEvents', {
    key: 'tms_not_a_real_key',
    rawBody: gzipSync('{}'),
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
  });
  assert.is(zipped.status, 401, 'a compressed call, which connect-node reads');
  assert.is(zipped.headers['www-authenticate'], 'Bearer realm="tms"');
  const refused = await call(server, 'GET', '/v1/search-events', { key: null, headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  assert.is(refused.headers['www-authenticate'], undefined, 'only on a 401');
});

/** A request with two Authorization headers (Node's clients join or refuse them), read until the server closes. */
function sendTwoCredentials(server: TestServer, requestLine: string, body: string, contentType = 'application/json'): Promise<string> {
  const socket = connect(server.port, '127.0.0.1');
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.setTimeout(5000, () => socket.destroy());
  socket.write(
    `${requestLine}\r\nHost: tms\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nauthorization: Bearer tms_not_a_real_key\r\n` +
      `Content-Type: ${contentType}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
  );
  return new Promise((resolve) => socket.once('close', () => resolve(text)));
}

errors('two Authorization headers are refused by name, on REST, Connect and gRPC-Web', async ({ server }) => {
  for (const [requestLine, contentType] of [
    ['GET /v1/search-events HTTP/1.1', 'application/json'],
    ['POST /tms.v1.EventService/SearchEvents HTTP/1.1', 'application/json'],
  ]) {
    const answer = await sendTwoCredentials(server, requestLine!, '{}', contentType);
    assert.match(answer, /^HTTP\/1\.1 400 /, requestLine);
    assert.match(answer, /"code":"invalid_argument"/);
    assert.match(answer, /"message":"Authorization: given more than once; send one credential"/);
  }
  // gRPC-Web clients read a status from grpc-status, not from the HTTP status.
  const answer = await sendTwoCredentials(server, 'POST /tms.v1.EventService/SearchEvents HTTP/1.1', '{}', 'application/grpc-web+json');
  assert.match(answer, /^HTTP\/1\.1 200 /);
  assert.match(answer, /\r\ngrpc-status: 3\r\n/);
  assert.is(decodeURIComponent(/\r\ngrpc-message: ([^\r]*)\r\n/.exec(answer)?.[1] ?? ''), 'Authorization: given more than once; send one credential');
});

errors('a location with no letters or digits is refused naming location, not searched as no location at all', async ({ server }) => {
  for (const location of ['!!!', '   ', '-', '\ufffd']) {
    expectError(await call(server, 'GET', '/v1/search-events', { body: { location } }), 400, 'invalid_argument', 'location');
    expectError(await call(server, 'POST', '/tms.v1.EventService/SearchEvents', { body: { location } }), 400, 'invalid_argument', 'location');
  }
  expectError(await call(server, 'GET', '/v1/search-events?location=%21%21'), 400, 'invalid_argument', 'location');
  const blank = await call(server, 'GET', '/v1/search-events', { body: { location: '', page_size: 1 } });
  assert.is(blank.status, 200, 'an empty location is no location, as in proto3');
});

errors('a query string escape that is not UTF-8, or not an escape, is refused naming its field', async ({ server }) => {
  for (const query of ['location=%FF', 'location=%', 'location=%zz', 'location=Paris%E2%82']) {
    const res = await call(server, 'GET', `/v1/search-events?${query}`);
    expectError(res, 400, 'invalid_argument', 'location');
    assert.match(res.json.message, /not valid percent-encoded UTF-8/);
  }
  expectError(await call(server, 'GET', '/v1/search-events?loc%FFation=Paris'), 400, 'invalid_argument', 'query string');
  for (const path of ['/timeline/%FF', '/v1/timeline/tl_%zz', '/timeline/%']) {
    const res = await call(server, 'GET', path);
    expectError(res, 400, 'invalid_argument', 'timeline_id');
    assert.match(res.json.message, /not valid percent-encoded UTF-8/, path);
  }
  const escapedId = await call(server, 'GET', '/timeline/prim%61ry');
  assert.is(escapedId.status, 200, 'an escape in a path parameter is read');
  assert.is(escapedId.json.timeline.timeline_id, 'primary');
  const escaped = await call(server, 'GET', '/v1/search-events?location=S%C3%A3o+Paulo%2C%20Brazil&page_size=1');
  assert.is(escaped.status, 200, escaped.text);
});

errors('blanks alone are refused by name, neither kept as a value nor taken for a missing field', async ({ server }) => {
  const before = (await call(server, 'GET', '/v1/timelines')).json.timelines.length;
  const cases: [path: string, body: Record<string, unknown>, field: string][] = [
    ['/timelines', { base_timeline_id: 'primary', variation: '   ' }, 'variation'],
    ['/v1/create-parallel-timeline', { base_timeline_id: 'primary', variation: '  ' }, 'variation'],
    ['/api/v1/travel', { destination_time: '1969-07-20T20:17:40Z', location: 'Houston', traveller: '   ' }, 'traveller'],
    ['/api/v1/travel', { destination_time: '1969-07-20T20:17:40Z', location: '  ' }, 'location'],
    ['/v1/set-anchor', { timestamp: '2025-01-01T00:00:00Z', environment: { temperature: '  ' } }, 'environment.temperature'],
    ['/v1/set-anchor', { timestamp: '2025-01-01T00:00:00Z', quantum_state: { qubit_configuration: ' ' } }, 'quantum_state.qubit_configuration'],
  ];
  for (const [path, body, field] of cases) {
    const res = await call(server, 'POST', path, { body });
    expectError(res, 400, 'invalid_argument', field);
    assert.match(res.json.message, /is (blank|required)/, `${path} ${field}`);
  }
  assert.is((await call(server, 'GET', '/v1/timelines')).json.timelines.length, before, 'no timeline was made');
  const blankTimeline = await call(server, 'GET', '/v1/check-paradox', { body: { timeline_id: '   ' } });
  expectError(blankTimeline, 400, 'invalid_argument', 'timeline_id');
  assert.is(blankTimeline.json.message, 'timeline_id: is blank: give a timeline id, or leave the field out for "primary"', 'an optional field is not "required"');
  const long = await call(server, 'POST', '/v1/create-parallel-timeline', { body: { base_timeline_id: 'primary', variation: 'x'.repeat(2001) } });
  expectError(long, 400, 'invalid_argument', 'variation');
  assert.is(long.json.message, 'variation: must be at most 2000 characters');
});

errors('unknown route is 404 and names the route', async ({ server }) => {
  const res = await call(server, 'GET', '/v1/no-such-thing');
  expectError(res, 404, 'not_found');
  assert.match(res.json.message, /GET \/v1\/no-such-thing/);
});

errors('wrong method is 405 with Allow', async ({ server }) => {
  const res = await call(server, 'PUT', '/v1/search-events', { body: {} });
  assert.is(res.status, 405, res.text);
  assert.is(res.headers['allow'], 'GET, HEAD');
  assert.is(res.json.code, 'unimplemented');
  const del = await call(server, 'POST', '/timeline/primary', { body: {} });
  assert.is(del.status, 405);
  assert.is(del.headers['allow'], 'GET, HEAD, DELETE');
});

errors('health, metrics and the API description answer reads only: another method is 405 with Allow', async ({ server }) => {
  for (const path of ['/healthz', '/readyz', '/metrics', '/openapi.json']) {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const res = await call(server, method, path, { key: null, body: {} });
      expectError(res, 405, 'unimplemented');
      assert.is(res.headers['allow'], 'GET, HEAD', `${method} ${path}`);
      assert.match(res.json.message, new RegExp(`method ${method} is not allowed on ${path}`));
      assert.ok(res.headers['x-request-id'], 'request id on the 405');
    }
    const head = await call(server, 'HEAD', path, { key: null });
    assert.is(head.status, 200, `HEAD ${path}`);
    assert.is(head.text, '', 'HEAD has no body');
  }
});

errors('an unknown RPC method is 404 unimplemented in the same error shape, and counted as such in the metrics', async ({ server }) => {
  // Connect calls (JSON) to paths no service has: the protocol they speak, no route of their own.
  const unmatchedUnimplemented = async () => {
    const metrics = await call(server, 'GET', '/metrics', { key: null });
    return Number(/tms_requests_total\{route="unmatched",protocol="connect",code="unimplemented"\} (\d+)/.exec(metrics.text)?.[1] ?? 0);
  };
  const before = await unmatchedUnimplemented();
  for (const path of ['/tms.v1.EventService/NoSuchMethod', '/tms.v1.NoSuchService/SearchEvents']) {
    const res = await call(server, 'POST', path, { body: {} });
    expectError(res, 404, 'unimplemented');
    assert.match(res.json.message, new RegExp(`no RPC method ${path.replaceAll('.', '\\.')}`));
    assert.ok(res.headers['x-request-id'], 'request id on the 404');
  }
  assert.is(await unmatchedUnimplemented(), before + 2, 'counted as unimplemented, not ok');
});

errors('a path with dots that cannot name an RPC is 404 not_found for any method, not 405', async ({ server }) => {
  for (const path of ['/.well-known/security.txt', '/robots.txt', '/tms.v1.EventService/Search.Events', '/a.b/c/d']) {
    for (const method of ['GET', 'POST']) {
      const res = await call(server, method, path, { key: null });
      expectError(res, 404, 'not_found');
      assert.match(res.json.message, `no route for ${method} ${path}`);
      assert.is(res.headers['allow'], undefined, `${method} ${path}`);
    }
  }
});

errors('a body over the limit is 413 and nothing is written', async ({ server }) => {
  const before = await call(server, 'GET', '/timelines');
  const res = await call(server, 'POST', '/v1/create-timeline', {
    body: { base_timeline_id: 'primary', description: 'x'.repeat(70 * 1024) },
  });
  assert.is(res.status, 413, res.text);
  assert.is(res.json.code, 'resource_exhausted');
  assert.match(res.json.message, /request body/);
  const after = await call(server, 'GET', '/timelines');
  assert.equal(after.json.timelines.length, before.json.timelines.length);
});

errors('a POST with a field in the query string is 400 naming the field, and nothing is written', async ({ server }) => {
  const before = await call(server, 'GET', '/v1/timeline/primary');
  const res = await call(server, 'POST', '/v1/manipulate-event?timeline_id=tl_elsewhere', {
    body: { event_id: 'storming-of-the-bastille', new_outcome: { description: 'A quiet day.' } },
  });
  expectError(res, 400, 'invalid_argument', 'timeline_id');
  assert.match(res.json.message, /JSON body only, not from the query string/);
  assert.equal(violations(res).map(([type, field]) => [type, field]), [['tms.v1.FieldViolation', 'timeline_id']]);
  const after = await call(server, 'GET', '/v1/timeline/primary');
  assert.is(after.json.timeline.revision, before.json.timeline.revision, 'primary was not written');
});

/** Sends a request whose body is declared but never sent, and reads what the server sends until it closes. */
function sendWithoutBody(server: TestServer, head: string): Promise<string> {
  const socket = connect(server.port, '127.0.0.1');
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  // A server that keeps the connection to drain the body must fail the test, not hang it.
  socket.setTimeout(5000, () => socket.destroy());
  socket.write(`${head}\r\nHost: tms\r\nContent-Type: application/json\r\n\r\n{"base_timeline_id": `);
  return new Promise((resolve) => socket.once('close', () => resolve(text)));
}

errors('a REST error answered before the body is read closes the connection instead of draining the body', async ({ server }) => {
  const before = await call(server, 'GET', '/v1/timelines');
  const badKey = await sendWithoutBody(server, 'POST /v1/create-timeline HTTP/1.1\r\nAuthorization: Bearer tms_not_a_real_key\r\nContent-Length: 100');
  assert.match(badKey, /^HTTP\/1\.1 401 /);
  assert.match(badKey, /\r\nconnection: close\r\n/i);
  assert.match(badKey, /"code":"unauthenticated"/);
  const huge = await sendWithoutBody(server, `POST /v1/create-timeline HTTP/1.1\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nContent-Length: 10000000000`);
  assert.match(huge, /^HTTP\/1\.1 413 /);
  assert.match(huge, /\r\nconnection: close\r\n/i);
  assert.match(huge, /"code":"resource_exhausted"/);
  const compressed = await sendWithoutBody(server, `POST /v1/create-timeline HTTP/1.1\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nContent-Encoding: gzip\r\nContent-Length: 100`);
  assert.match(compressed, /^HTTP\/1\.1 415 /, 'a body it cannot read is refused before it arrives');
  assert.match(compressed, /\r\nconnection: close\r\n/i);
  const after = await call(server, 'GET', '/v1/timelines');
  assert.is(after.json.timelines.length, before.json.timelines.length, 'nothing was created');
});

errors('bad JSON is 400 invalid_argument, a FieldViolation on the request body', async ({ server }) => {
  const res = await call(server, 'POST', '/v1/create-timeline', { rawBody: '{"base_timeline_id": "primary",' });
  expectError(res, 400, 'invalid_argument', 'request body');
  assert.equal(violations(res).map(([type, field]) => [type, field]), [['tms.v1.FieldViolation', 'request body']]);
  const array = await call(server, 'POST', '/v1/create-timeline', { rawBody: '[1,2]' });
  expectError(array, 400, 'invalid_argument', 'request body');
  assert.equal(violations(array), [['tms.v1.FieldViolation', 'request body', 'must be a JSON object']]);
});

errors('a non-JSON content type is 415, a FieldViolation on the request body', async ({ server }) => {
  const res = await call(server, 'POST', '/v1/create-timeline', { rawBody: '<timeline/>', headers: { 'content-type': 'application/xml' } });
  assert.is(res.status, 415, res.text);
  assert.is(res.json.code, 'invalid_argument');
  assert.equal(violations(res), [['tms.v1.FieldViolation', 'request body', 'Content-Type must be application/json, got "application/xml"']]);
  const before = (await call(server, 'GET', '/v1/timelines')).json.timelines.length;
  for (const type of ['application/json; charset=latin1', 'application/json; charset=utf-16', 'application/json;charset="iso-8859-1"']) {
    const other = await call(server, 'POST', '/v1/create-timeline', { rawBody: '{"description":"caf\u00e9"}', headers: { 'content-type': type } });
    assert.is(other.status, 415, `${type}: ${other.text}`);
    assert.match(other.json.message, /^request body: Content-Type must be application\/json in UTF-8/, type);
  }
  assert.is((await call(server, 'GET', '/v1/timelines')).json.timelines.length, before, 'nothing was written');
  for (const type of ['application/json; charset=utf-8', 'application/json;charset=UTF8', 'application/json; charset="utf-8"', 'application/json; charset= utf-8']) {
    const utf8 = await call(server, 'GET', '/v1/search-events', { body: { location: 'Paris', page_size: 1 }, headers: { 'content-type': type } });
    assert.is(utf8.status, 200, `${type}: ${utf8.text}`);
  }
});

errors('wrong types name the field', async ({ server }) => {
  const res = await call(server, 'GET', '/v1/search-events', { body: { location: 123 } });
  expectError(res, 400, 'invalid_argument', 'location');
  assert.match(res.json.message, /expected string, got number/);
  expectError(await call(server, 'POST', '/v1/manipulate-event', { body: { event_id: 'x', new_outcome: 'no', safety_check: false } }), 400, 'invalid_argument', 'new_outcome');
  expectError(
    await call(server, 'POST', '/v1/manipulate-event', { body: { event_id: 'x', new_outcome: { description: 'd', changes: [] }, safety_check: 'yes' } }),
    400,
    'invalid_argument',
    'safety_check',
  );
  for (const [path, body] of [
    ['/v1/manipulate-event', { event_id: 'moon-landing', new_outcome: { description: 'd', changes: [{ action: 'reschedule', time: '1970-01-01T00:00:00Z' }] } }],
    ['/api/v1/manipulate-event', { event_id: 'moon-landing', action: 'cancel', time: '1969-07-20T20:17:40Z' }],
  ] as const) {
    for (const flag of ['true', 'false']) {
      const res = await call(server, 'POST', path, { body: { ...body, safety_check: flag } });
      expectError(res, 400, 'invalid_argument', 'safety_check');
      assert.match(res.json.message, /expected boolean, got string/, `${path} "${flag}"`);
    }
  }
});

errors('missing fields name the field', async ({ server }) => {
  const res = await call(server, 'POST', '/v1/manipulate-event', { body: { new_outcome: { description: 'd', changes: [] } } });
  expectError(res, 400, 'invalid_argument', 'event_id');
  assert.match(res.json.message, /required/);
  expectError(await call(server, 'POST', '/v1/manipulate-event', { body: { event_id: 'x' } }), 400, 'invalid_argument', 'new_outcome');
  expectError(await call(server, 'POST', '/v1/create-parallel-timeline', { body: { base_timeline_id: 'primary', description: 'd' } }), 400, 'invalid_argument', 'variation');
});

errors('an empty timestamp is one not given, as on Connect: "is required"', async ({ server }) => {
  for (const [path, rpc, body, field] of [
    ['/v1/set-anchor', '/tms.v1.AnchorService/SetAnchor', { timestamp: '' }, 'timestamp'],
    ['/api/v1/travel', '/tms.v1.TutorialService/Travel', { destination_time: '', location: 'Houston' }, 'destination_time'],
  ] as const) {
    const rest = await call(server, 'POST', path, { body });
    const connect = await call(server, 'POST', rpc, { body });
    expectError(rest, 400, 'invalid_argument', field);
    assert.is(rest.json.message, `${field}: is required`);
    assert.is(connect.json.message, rest.json.message, `${rpc} says the same`);
  }
  const monitor = await call(server, 'GET', '/api/v1/monitor-paradox', { body: { time_range: '' } });
  expectError(monitor, 400, 'invalid_argument', 'time_range');
  assert.is(monitor.json.message, 'time_range: is required', 'an empty interval is one not given too');
  const notText = await call(server, 'POST', '/v1/manipulate-event', {
    body: { event_id: 'moon-landing', new_outcome: { description: 'd', changes: [{ action: 'cancel', time: '1969-07-20T20:17:40Z' }] }, safety_check: '' },
  });
  expectError(notText, 400, 'invalid_argument', 'safety_check');
  assert.is(notText.json.message, 'safety_check: expected boolean, got string', '"" where no text belongs is the wrong type, not a field not given');
});

errors('bad timestamps name the nested field', async ({ server }) => {
  const res = await call(server, 'POST', '/v1/manipulate-event', {
    body: { event_id: 'x', new_outcome: { description: 'd', changes: [{ action: 'reschedule', time: '1789-13-14T00:00:00Z' }] } },
  });
  expectError(res, 400, 'invalid_argument', 'new_outcome.changes[0].time');
  assert.match(res.json.message, /month/);
  expectError(await call(server, 'GET', '/v1/search-events', { body: { time_range: '2000-01-01T00:00:00Z/1999-01-01T00:00:00Z' } }), 400, 'invalid_argument', 'time_range');
  expectError(await call(server, 'GET', '/v1/search-events', { body: { time_range: 'yesterday/today' } }), 400, 'invalid_argument', 'time_range');
  expectError(await call(server, 'POST', '/api/v1/travel', { body: { destination_time: '1969-07-20', location: 'Houston' } }), 400, 'invalid_argument', 'destination_time');
});

errors('a timestamp that its offset moves beyond the supported years is refused, and nothing is written', async ({ server }) => {
  for (const timestamp of ['-999999999-01-01T00:00:00+01:00', '+999999999-12-31T23:59:59-01:00']) {
    const res = await call(server, 'POST', '/v1/set-anchor', { body: { timestamp, description: 'd' } });
    expectError(res, 400, 'invalid_argument', 'timestamp');
    assert.match(res.json.message, /in UTC it falls outside the supported years -999999999 to \+999999999/);
  }
  const travel = await call(server, 'POST', '/api/v1/travel', { body: { destination_time: '+999999999-12-31T23:00:00-02:00', location: 'Houston' } });
  expectError(travel, 400, 'invalid_argument', 'destination_time');
  const check = await call(server, 'GET', '/v1/check-paradox', { body: { timeline_id: 'primary' } });
  assert.is(check.status, 200, check.text);
  assert.is(check.json.figures.anchors_analysed, 0, 'no anchor was set');
});

errors('a body JSON.parse would read with a loss is refused by name, and nothing is written', async ({ server }) => {
  const twice = await call(server, 'GET', '/v1/search-events', { rawBody: '{"location":"paris","location":"rome"}' });
  expectError(twice, 400, 'invalid_argument', 'location');
  assert.is(twice.json.message, 'location: given twice in one object of the body');
  const nestedTwice = await call(server, 'POST', '/v1/manipulate-event', {
    rawBody: '{"event_id":"moon-landing","new_outcome":{"description":"a","description":"b","changes":[]}}',
  });
  expectError(nestedTwice, 400, 'invalid_argument', 'new_outcome.description');

  const notUtf8 = await call(server, 'POST', '/v1/create-timeline', {
    rawBody: Buffer.concat([Buffer.from('{"base_timeline_id":"primary","description":"a '), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
  });
  expectError(notUtf8, 400, 'invalid_argument', 'request body');
  assert.is(notUtf8.json.message, 'request body: not valid UTF-8');

  const lone = await call(server, 'POST', '/v1/create-timeline', { rawBody: '{"base_timeline_id":"primary","description":"x \\ud800"}' });
  expectError(lone, 400, 'invalid_argument', 'description');
  assert.match(lone.json.message, /unpaired surrogate/);
  const loneNested = await call(server, 'POST', '/v1/manipulate-event', {
    rawBody: '{"event_id":"moon-landing","new_outcome":{"description":"a","changes":[{"action":"cancel"},{"action":"\\udc00x"}]}}',
  });
  expectError(loneNested, 400, 'invalid_argument', 'new_outcome.changes[1].action');
  const paired = await call(server, 'GET', '/v1/search-events', { rawBody: '{"location":"Paris \\ud83d\\ude00"}' });
  assert.is(paired.status, 200, `a surrogate pair is a character: ${paired.text}`);

  const zipped = await call(server, 'POST', '/v1/create-timeline', {
    rawBody: gzipSync('{"base_timeline_id":"primary","description":"zipped"}'),
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
  });
  expectError(zipped, 415, 'invalid_argument', 'request body');
  assert.is(zipped.json.message, 'request body: Content-Encoding "gzip" is not supported; send the body uncompressed');

  const timelines = await call(server, 'POST', '/tms.v1.TimelineService/ListTimelines', { body: {} });
  assert.is(timelines.status, 200, `every timeline still reads over Connect: ${timelines.text}`);
  assert.equal(timelines.json.timelines.map((timeline: { timeline_id: string }) => timeline.timeline_id), ['primary'], 'no timeline was created');
});

errors('unknown fields are refused by name', async ({ server }) => {
  expectError(await call(server, 'GET', '/v1/search-events', { body: { location: 'paris', timelin_id: 'primary' } }), 400, 'invalid_argument', 'timelin_id');
  expectError(await call(server, 'GET', '/v1/search-events?colour=blue'), 400, 'invalid_argument', 'colour');
});

errors('unknown ids are 404 and name the id', async ({ server }) => {
  const timeline = await call(server, 'GET', '/v1/search-events', { body: { location: 'paris', timeline_id: 'tl_nope' } });
  expectError(timeline, 404, 'not_found');
  assert.match(timeline.json.message, /tl_nope/);
  const event = await call(server, 'POST', '/v1/manipulate-event', { body: { event_id: 'evt_nope', new_outcome: { description: 'd', changes: [] } } });
  expectError(event, 404, 'not_found');
  assert.match(event.json.message, /evt_nope/);
  expectError(await call(server, 'POST', '/v1/revert-event', { body: { event_id: 'evt_nope' } }), 404, 'not_found');
  expectError(await call(server, 'GET', '/timeline/tl_nope'), 404, 'not_found');
  expectError(await call(server, 'POST', '/v1/create-timeline', { body: { base_timeline_id: 'tl_nope', description: 'd' } }), 404, 'not_found');
});

errors('page_size above the maximum and a forged page_token are refused', async ({ server }) => {
  expectError(await call(server, 'GET', '/v1/search-events?page_size=100000'), 400, 'invalid_argument', 'page_size');
  const defaultPage = (await call(server, 'GET', '/v1/search-events')).json.events.length;
  for (const zero of [
    await call(server, 'GET', '/v1/search-events?page_size=0'),
    await call(server, 'GET', '/v1/search-events', { body: { page_size: 0 } }),
    await call(server, 'POST', '/tms.v1.EventService/SearchEvents', { body: { page_size: 0 } }),
  ]) {
    assert.is(zero.status, 200, zero.text);
    assert.is(zero.json.events.length, defaultPage, 'page_size 0 is not given: the default page, on every face');
  }
  // The query string and the body say the same of the same value.
  for (const [query, body, message] of [
    ['-1', -1, 'page_size: must be at least 1'],
    ['1.5', 1.5, 'page_size: must be a whole number'],
    ['ten', 'ten', 'page_size: must be a whole number'],
  ] as const) {
    assert.is((await call(server, 'GET', `/v1/search-events?page_size=${query}`)).json.message, message, `?page_size=${query}`);
    assert.is((await call(server, 'GET', '/v1/search-events', { body: { page_size: body } })).json.message, message, `page_size: ${body}`);
  }
  const huge = await call(server, 'GET', '/v1/search-events', { rawBody: '{"page_size":1e400}' });
  assert.is(huge.json.message, 'page_size: must be a whole number');
  expectError(await call(server, 'GET', '/v1/search-events?page_token=garbage!'), 400, 'invalid_argument', 'page_token');
});

errors('every bad field is a FieldViolation detail too: units, page tokens, a field given twice', async ({ server }) => {
  const unit = await call(server, 'POST', '/v1/set-anchor', { body: { timestamp: '2025-01-01T00:00:00Z', description: 'd', environment: { temperature: '22' } } });
  expectError(unit, 400, 'invalid_argument', 'environment.temperature');
  assert.equal(violations(unit), [['tms.v1.FieldViolation', 'environment.temperature', 'missing unit in "22" (expected °C, C, K or °F)']]);
  const units = await call(server, 'POST', '/v1/set-anchor', {
    body: { timestamp: '2025-01-01T00:00:00Z', environment: { temperature: '22', humidity: '150%' }, quantum_state: { superposition_stability: 'high' } },
  });
  expectError(units, 400, 'invalid_argument', 'environment.temperature');
  assert.equal(
    violations(units).map(([, field]) => field),
    ['environment.temperature', 'environment.humidity', 'quantum_state.superposition_stability'],
    'every bad unit is listed, not only the first',
  );

  const token = await call(server, 'GET', '/v1/search-events?page_token=garbage!');
  assert.equal(violations(token), [['tms.v1.FieldViolation', 'page_token', 'not a page token of this service']]);

  const twiceInQuery = await call(server, 'GET', '/v1/search-events?location=Paris&location=Rome');
  expectError(twiceInQuery, 400, 'invalid_argument', 'location');
  assert.equal(violations(twiceInQuery), [['tms.v1.FieldViolation', 'location', 'given twice in the query string with different values']]);

  const queryAndBody = await call(server, 'GET', '/v1/search-events?location=Paris', { body: { location: 'Rome' } });
  assert.equal(violations(queryAndBody), [['tms.v1.FieldViolation', 'location', 'given in the body and the query string with different values']]);

  const agreeing = await call(server, 'GET', '/v1/search-events?location=Paris&location=Paris', { body: { location: 'Paris' } });
  assert.is(agreeing.status, 200, 'the same value given twice is the same request');
});

errors('health, readiness, metrics and the API description need no key', async ({ server }) => {
  assert.is((await call(server, 'GET', '/healthz', { key: null })).status, 200);
  assert.is((await call(server, 'GET', '/readyz', { key: null })).status, 200);
  const metrics = await call(server, 'GET', '/metrics', { key: null });
  assert.is(metrics.status, 200);
  assert.match(metrics.text, /tms_requests_total/);
  const openapi = await call(server, 'GET', '/openapi.json', { key: null });
  assert.is(openapi.status, 200);
  assert.is(openapi.json.openapi, '3.1.0');
  assert.ok(openapi.json.paths['/v1/search-events'].get);
});

errors.run();
