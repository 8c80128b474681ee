// Connect unary calls: the uncompressed ones (served by tms's own Connect path) and compressed ones (served by
// connect-node) answer alike, and each malformed call gets connect-node's status, code and message.
import { request } from 'node:http';
import { gunzipSync, gzipSync } from 'node:zlib';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SearchEventsRequestSchema, SearchEventsResponseSchema } from '../../src/gen/tms/v1/event_service_pb.ts';
import { ADMIN_KEY, call, startTestServer, type TestServer } from '../support/server.ts';

const SEARCH = '/tms.v1.EventService/SearchEvents';
const QUERY = { time_range: '1000-01-01T00:00:00Z/2100-01-01T00:00:00Z', page_size: 5 };

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A POST whose answer is kept as bytes (it may be gzipped or binary). */
function post(port: number, path: string, body: Buffer, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path, headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-length': String(body.length), ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const connect = suite<{ server: TestServer }>('Connect unary calls');

connect.before(async (context) => {
  context.server = await startTestServer({ bodyLimitBytes: 16 * 1024, maxPageSize: 200 });
});

connect.after(async ({ server }) => {
  await server.stop();
});

connect('an uncompressed call and a gzip-compressed one (connect-node) get the same answer, in JSON and in binary', async ({ server }) => {
  const json = Buffer.from(JSON.stringify(QUERY));
  const plain = await post(server.port, SEARCH, json, { 'content-type': 'application/json' });
  const zipped = await post(server.port, SEARCH, gzipSync(json), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
  assert.is(plain.status, 200);
  assert.is(plain.headers['content-type'], 'application/json');
  assert.equal(JSON.parse(plain.body.toString()), JSON.parse(zipped.body.toString()));
  assert.is(JSON.parse(plain.body.toString()).events.length, 5);

  const message = Buffer.from(toBinary(SearchEventsRequestSchema, create(SearchEventsRequestSchema, { timeRange: QUERY.time_range, pageSize: 5 })));
  const binary = await post(server.port, SEARCH, message, { 'content-type': 'application/proto' });
  const binaryZipped = await post(server.port, SEARCH, gzipSync(message), { 'content-type': 'application/proto', 'content-encoding': 'gzip' });
  assert.is(binary.status, 200);
  assert.is(binary.headers['content-type'], 'application/proto');
  assert.ok(binary.body.equals(binaryZipped.body));
  assert.is(fromBinary(SearchEventsResponseSchema, binary.body).events.length, 5);
});

connect('an answer of 32 KiB or more is gzipped for a client that accepts gzip, and only then', async ({ server }) => {
  const json = Buffer.from(JSON.stringify({ ...QUERY, page_size: 200 }));
  const zipped = await post(server.port, SEARCH, json, { 'content-type': 'application/json', 'accept-encoding': 'gzip' });
  const plain = await post(server.port, SEARCH, json, { 'content-type': 'application/json' });
  assert.is(zipped.status, 200);
  assert.is(zipped.headers['content-encoding'], 'gzip');
  assert.is(plain.headers['content-encoding'], undefined);
  assert.ok(plain.body.length >= 32 * 1024, `a big answer (${plain.body.length} bytes)`);
  assert.ok(gunzipSync(zipped.body).equals(plain.body));
});

connect('proto-JSON names in camelCase are read, as connect-node reads them', async ({ server }) => {
  const res = await call(server, 'POST', SEARCH, { body: { timeRange: QUERY.time_range, pageSize: 2 } });
  assert.is(res.status, 200);
  assert.is(res.json.events.length, 2);
});

connect('a member that names no field is refused by name, as REST refuses it, and the call does nothing', async ({ server }) => {
  const typo = await call(server, 'POST', '/tms.v1.AnchorService/SetAnchor', { body: { timline_id: 'some-branch', timestamp: '2025-01-01T00:00:00Z' } });
  assert.is(typo.status, 400);
  assert.is(typo.json.code, 'invalid_argument');
  assert.is(typo.json.message, 'timline_id: unknown field');
  assert.equal(typo.json.details.map((detail: { debug: unknown }) => detail.debug), [{ field: 'timline_id', description: 'unknown field' }]);
  const nested = await call(server, 'POST', '/tms.v1.EventService/ManipulateEvent', {
    body: { event_id: 'storming-of-the-bastille', new_outcome: { description: 'x', changes: [{ actio: 'cancel' }] } },
  });
  assert.is(nested.status, 400);
  assert.is(nested.json.message, 'new_outcome.changes[0].actio: unknown field');
  const bastille = await call(server, 'GET', '/v1/search-events', { body: { location: 'Paris', time_range: '1789-07-14T00:00:00Z/P1D' } });
  assert.equal(
    bastille.json.events.map((event: { event_id: string; status: string }) => [event.event_id, event.status]),
    [['storming-of-the-bastille', 'original']],
    'the event was not manipulated',
  );

  // Compressed (connect-node reads it) and gRPC-Web JSON: refused too, in protobuf-es's words, which name the member.
  const json = Buffer.from(JSON.stringify({ ...QUERY, timelin_id: 'x' }));
  const zipped = await post(server.port, SEARCH, gzipSync(json), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
  assert.is(zipped.status, 400);
  assert.is(JSON.parse(zipped.body.toString()).code, 'invalid_argument');
  assert.match(JSON.parse(zipped.body.toString()).message, /key "timelin_id" is unknown/);
  const envelope = Buffer.alloc(5);
  envelope.writeUInt32BE(json.length, 1);
  const web = await post(server.port, SEARCH, Buffer.concat([envelope, json]), { 'content-type': 'application/grpc-web+json' });
  // gRPC-Web over HTTP/1.1: the status comes in the trailer frame that ends the body.
  const trailers = web.body.subarray(5).toString();
  assert.match(trailers, /^grpc-status: 3$/m, 'INVALID_ARGUMENT');
  assert.match(decodeURIComponent(trailers), /key "timelin_id" is unknown/);
});

const refusals: [string, string | Buffer, Record<string, string>, number, string, string][] = [
  ['a body that is not JSON', '{"page_size": ', {}, 400, 'invalid_argument', 'Unexpected end of JSON input'],
  ['a field of the wrong type', '{"page_size": "abc"}', {}, 400, 'invalid_argument', 'page_size: expected number (int32), got "abc"'],
  ['a member named twice', '{"page_size": 1, "page_size": 2}', {}, 400, 'invalid_argument', 'duplicate object key "page_size"'],
  ['bytes that are not the request message', Buffer.from([0xff, 0xff, 0xff]), { 'content-type': 'application/proto' }, 400, 'invalid_argument', 'parse binary: '],
  ['a body over the size limit', JSON.stringify({ location: 'x'.repeat(20_000) }), {}, 429, 'resource_exhausted', 'message size 20015 is larger than configured readMaxBytes 16384'],
  ['a bad connect-timeout-ms', JSON.stringify(QUERY), { 'connect-timeout-ms': 'soon' }, 400, 'invalid_argument', 'protocol error: invalid connect timeout value: soon'],
  ['no key', JSON.stringify(QUERY), { authorization: '' }, 401, 'unauthenticated', 'missing Authorization: Bearer'],
  ['an input the operation refuses', '{"page_size": -1}', {}, 400, 'invalid_argument', 'page_size'],
];

for (const [what, body, headers, status, code, message] of refusals) {
  connect(`${what}: ${status} ${code}, "${message}"`, async ({ server }) => {
    const res = await call(server, 'POST', SEARCH, { rawBody: body, headers: { 'content-type': 'application/json', ...headers } });
    assert.is(res.status, status);
    assert.is(res.headers['content-type'], 'application/json');
    assert.is(res.json.code, code);
    assert.ok(String(res.json.message).includes(message), `${res.json.message} names ${message}`);
  });
}

connect('a value protobuf-es cannot read is refused naming its member by its path, as REST names it', async ({ server }) => {
  const manipulate = '/tms.v1.EventService/ManipulateEvent';
  const cases: [body: unknown, field: string, problem: string][] = [
    [{ event_id: 'moon-landing', new_outcome: 'x' }, 'new_outcome', 'expected object, got string'],
    [{ eventId: 'moon-landing', newOutcome: 'x' }, 'new_outcome', 'expected object, got string'],
    [{ event_id: 'moon-landing', new_outcome: { description: 'd', changes: [5] } }, 'new_outcome.changes[0]', 'expected object, got number'],
    [{ event_id: 'moon-landing', new_outcome: { description: 'd', changes: { action: 'cancel' } } }, 'new_outcome.changes', 'expected array, got object'],
    [{ event_id: 'moon-landing', new_outcome: { description: 'd', changes: [{ action: 'cancel' }, { action: 'reschedule', time: 5 }] } }, 'new_outcome.changes[1].time', 'expected string, got 5'],
    [{ event_id: 'moon-landing', safety_check: 'true' }, 'safety_check', 'expected boolean, got "true"'],
  ];
  for (const [body, field, problem] of cases) {
    const res = await call(server, 'POST', manipulate, { body });
    assert.is(res.status, 400, res.text);
    assert.is(res.json.code, 'invalid_argument');
    assert.is(res.json.message, `${field}: ${problem}`);
    assert.equal(res.json.details.map((d: { debug: { field: string } }) => d.debug.field), [field]);
  }
});

connect('a body naming a member twice is refused alike, compressed (connect-node) or not', async ({ server }) => {
  const json = Buffer.from('{"time_range": "x", "page_size": 1, "unknown": 1, "unknown": 2}');
  const plain = await post(server.port, SEARCH, json, { 'content-type': 'application/json' });
  const zipped = await post(server.port, SEARCH, gzipSync(json), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
  assert.is(plain.status, 400);
  assert.is(zipped.status, 400);
  assert.is(JSON.parse(plain.body.toString()).code, 'invalid_argument');
  assert.is(JSON.parse(plain.body.toString()).message, JSON.parse(zipped.body.toString()).message);
  assert.match(JSON.parse(plain.body.toString()).message, 'duplicate object key "unknown"');
});

connect('a JSON body that is not UTF-8 is refused, as REST refuses it, and nothing is created', async ({ server }) => {
  const before = (await call(server, 'GET', '/v1/timelines')).json.timelines.length;
  const body = Buffer.concat([Buffer.from('{"base_timeline_id":"primary","description":"a '), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
  const answer = await post(server.port, '/tms.v1.TimelineService/CreateTimeline', body, { 'content-type': 'application/json' });
  assert.is(answer.status, 400, answer.body.toString());
  const error = JSON.parse(answer.body.toString());
  assert.is(error.code, 'invalid_argument');
  assert.is(error.message, 'request body: not valid UTF-8');
  assert.is((await call(server, 'GET', '/v1/timelines')).json.timelines.length, before, 'no timeline with U+FFFD in its description');
});

connect('a field of the wrong type is named in a FieldViolation, as a refused field of REST is', async ({ server }) => {
  const res = await call(server, 'POST', SEARCH, { rawBody: '{"page_size": "abc"}', headers: { 'content-type': 'application/json' } });
  assert.is(res.status, 400);
  assert.is(res.json.code, 'invalid_argument');
  assert.is(res.json.details?.length, 1);
  assert.is(res.json.details[0].type, 'tms.v1.FieldViolation');
  assert.is(res.json.details[0].debug.field, 'page_size');
  assert.match(res.json.details[0].debug.description, /abc/);
});

connect("a streaming Connect content type on a unary method is 415 in the error JSON, naming what the method takes", async ({ server }) => {
  const res = await call(server, 'POST', SEARCH, { rawBody: JSON.stringify(QUERY), headers: { 'content-type': 'application/connect+json' } });
  assert.is(res.status, 415);
  assert.is(res.json.code, 'invalid_argument');
  assert.match(res.json.message, /^request body: Content-Type must be application\/json or application\/proto \(SearchEvents is unary\), got "application\/connect\+json"/);
  assert.type(res.headers['x-request-id'], 'string');
});

connect.run();
