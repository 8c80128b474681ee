// gRPC at the frame level, over a raw HTTP/2 client: plain unary calls (served by tms's own gRPC path) and the
// calls connect-node serves (compressed requests) answer alike, and every malformed request gets connect-node's
// status and message in the trailers.
import { connect, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { gunzipSync, gzipSync } from 'node:zlib';
import { create, fromBinary, toBinary, toJson } from '@bufbuild/protobuf';
import { CreateTimelineRequestSchema } from '../../src/gen/tms/v1/timeline_service_pb.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SearchEventsRequestSchema, SearchEventsResponseSchema } from '../../src/gen/tms/v1/event_service_pb.ts';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/server.ts';

interface Answer {
  headers: IncomingHttpHeaders;
  trailers: IncomingHttpHeaders;
  body: Buffer;
}

const SEARCH = '/tms.v1.EventService/SearchEvents';

function envelope(message: Uint8Array, flags = 0): Buffer {
  const bytes = Buffer.alloc(5 + message.length);
  bytes[0] = flags;
  bytes.writeUInt32BE(message.length, 1);
  bytes.set(message, 5);
  return bytes;
}

/** The one message of a reply, unzipped when its envelope says so. */
function replyMessage(body: Buffer): Buffer {
  assert.ok(body.length >= 5, `a reply envelope (${body.length} bytes)`);
  const data = body.subarray(5, 5 + body.readUInt32BE(1));
  return body[0] === 1 ? gunzipSync(data) : data;
}

const searchRequest = (pageSize = 5) => toBinary(SearchEventsRequestSchema, create(SearchEventsRequestSchema, { timeRange: '1000-01-01T00:00:00Z/2100-01-01T00:00:00Z', pageSize }));

function post(session: ClientHttp2Session, path: string, body: Buffer, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc',
      te: 'trailers',
      authorization: `Bearer ${ADMIN_KEY}`,
      ...headers,
    });
    const chunks: Buffer[] = [];
    let answer: IncomingHttpHeaders = {};
    let trailers: IncomingHttpHeaders = {};
    stream.on('response', (h) => (answer = h));
    stream.on('trailers', (t) => (trailers = t));
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve({ headers: answer, trailers, body: Buffer.concat(chunks) }));
    stream.on('error', reject);
    stream.end(body);
  });
}

const framing = suite<{ server: TestServer; session: ClientHttp2Session }>('gRPC framing, over raw HTTP/2');

framing.before(async (context) => {
  context.server = await startTestServer({ bodyLimitBytes: 16 * 1024, maxPageSize: 200 });
  context.session = connect(`http://127.0.0.1:${context.server.port}`);
});

framing.after(async ({ server, session }) => {
  session.close();
  await server.stop();
});

framing('a plain call and a gzip-compressed one (connect-node) get the same reply', async ({ session }) => {
  const plain = await post(session, SEARCH, envelope(searchRequest()));
  const zipped = await post(session, SEARCH, envelope(gzipSync(searchRequest()), 1), { 'grpc-encoding': 'gzip' });
  for (const answer of [plain, zipped]) {
    assert.is(answer.headers[':status'], 200);
    assert.is(answer.headers['content-type'], 'application/grpc+proto');
    assert.is(answer.trailers['grpc-status'], '0');
  }
  const plainReply = toJson(SearchEventsResponseSchema, fromBinary(SearchEventsResponseSchema, replyMessage(plain.body)));
  const zippedReply = toJson(SearchEventsResponseSchema, fromBinary(SearchEventsResponseSchema, replyMessage(zipped.body)));
  assert.equal(plainReply, zippedReply);
  assert.is((plainReply as { events: unknown[] }).events.length, 5);
});

framing('a reply of 32 KiB or more is gzipped for a client that accepts gzip, and only then', async ({ session }) => {
  const request = envelope(searchRequest(200));
  const zipped = await post(session, SEARCH, request, { 'grpc-accept-encoding': 'identity,gzip' });
  const plain = await post(session, SEARCH, request);
  assert.is(zipped.trailers['grpc-status'], '0');
  assert.is(plain.trailers['grpc-status'], '0');
  assert.ok(replyMessage(plain.body).length >= 32 * 1024, `a big reply (${replyMessage(plain.body).length} bytes)`);
  assert.is(zipped.headers['grpc-encoding'], 'gzip');
  assert.is(zipped.body[0], 1);
  assert.is(plain.headers['grpc-encoding'], undefined);
  assert.is(plain.body[0], 0);
  assert.ok(replyMessage(zipped.body).equals(replyMessage(plain.body)));
});

const refusals: [string, () => Buffer, Record<string, string>, string, string][] = [
  ['an empty body', () => Buffer.alloc(0), {}, '12', 'protocol error: missing input message for unary method'],
  ['a cut envelope header', () => Buffer.from([0, 0, 0]), {}, '3', 'protocol error: incomplete envelope'],
  ['a message shorter than its header says', () => envelope(searchRequest()).subarray(0, 9), {}, '3', 'protocol error: incomplete envelope'],
  ['two messages', () => Buffer.concat([envelope(searchRequest()), envelope(searchRequest())]), {}, '12', 'protocol error: received extra input message for unary method'],
  ['a compressed message without grpc-encoding', () => envelope(gzipSync(searchRequest()), 1), {}, '13', 'received compressed envelope, but do not know how to decompress'],
  ['bytes that are not the request message', () => envelope(Buffer.from([0xff, 0xff, 0xff])), {}, '3', 'parse binary: '],
  ['a message over the size limit', () => envelope(Buffer.alloc(20_000)), {}, '8', 'message size 20000 is larger than configured readMaxBytes 16384'],
  ['a bad grpc-timeout', () => envelope(searchRequest()), { 'grpc-timeout': '5 seconds' }, '3', 'protocol error: invalid grpc timeout value: 5 seconds'],
  ['no key', () => envelope(searchRequest()), { authorization: '' }, '16', 'missing Authorization: Bearer'],
];

for (const [what, body, headers, status, message] of refusals) {
  framing(`${what}: grpc-status ${status}, "${message}"`, async ({ session }) => {
    const answer = await post(session, SEARCH, body(), headers);
    assert.is(answer.headers[':status'], 200);
    assert.is(answer.trailers['grpc-status'], status);
    assert.ok(decodeURIComponent(String(answer.trailers['grpc-message'])).startsWith(message), `${answer.trailers['grpc-message']} starts with ${message}`);
    assert.is(answer.body.length, 0);
  });
}

framing('a call whose deadline had passed when it arrived does nothing, and says so', async ({ session }) => {
  const list = async () => (await post(session, '/tms.v1.TimelineService/ListTimelines', envelope(Buffer.alloc(0)))).body.length;
  const before = await list();
  const late = toBinary(CreateTimelineRequestSchema, create(CreateTimelineRequestSchema, { baseTimelineId: 'primary', description: 'late' }));
  const spent = await post(session, '/tms.v1.TimelineService/CreateTimeline', envelope(late), {
    'grpc-timeout': '0n',
  });
  assert.is(spent.trailers['grpc-status'], '4', 'DEADLINE_EXCEEDED');
  assert.match(decodeURIComponent(String(spent.trailers['grpc-message'])), /had passed when it arrived; nothing was done/);
  assert.is(await list(), before, 'no timeline was made');
});

framing('the session still serves calls after every refusal', async ({ session }) => {
  const answer = await post(session, SEARCH, envelope(searchRequest(1)));
  assert.is(answer.trailers['grpc-status'], '0');
});

framing.run();
