import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { call } from '../support/server.ts';
import { eventually } from '../support/eventually.ts';
import { CANCEL, FLAG, FRAME, frame, literalHeaders, rawHttp2, rstStream } from '../support/raw-http2.ts';
import { startServeProcess, type ServeProcess } from '../support/serve-process.ts';

const KEY = 'tms_test_request_log_key_0123456789';
const BURST = 400;

const requestLines = (server: ServeProcess): Record<string, unknown>[] => server.logEntries().filter((entry) => entry['msg'] === 'request');

test('every finished request is already in the log, one structured line each, even in a burst', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tms-request-log-'));
  const server = await startServeProcess(dataDir, { args: ['--admin-key', KEY, '--rate-limit', '0'] });
  try {
    const ids = Array.from({ length: BURST }, (_, i) => `burst-${i}`);
    const answers = await Promise.all(
      ids.map((id, i) =>
        call(server, 'GET', '/v1/search-events', {
          key: KEY,
          headers: { 'x-request-id': id },
          body: i % 2 ? { location: 'Paris', page_size: 5 } : { location: 'Rome', time_range: 'bad' },
        }),
      ),
    );
    assert.is(answers.filter((a) => a.status === 200).length, BURST / 2);

    // A response can reach us a moment before the server runs its 'finish' handlers (where the line is
    // written). One more round trip settles that: the server reads no new request before the completions of
    // its earlier writes have run. A log that defers its writes would still hold most of the burst here.
    assert.is((await call(server, 'GET', '/healthz', { key: null })).status, 200);
    const lines = requestLines(server);
    const byId = new Map(lines.map((line) => [line['req_id'], line]));
    const missing = ids.filter((id) => !byId.has(id));
    assert.equal(missing, [], `${missing.length} finished requests not yet logged`);
    assert.is(lines.filter((line) => typeof line['req_id'] === 'string' && line['req_id'].startsWith('burst-')).length, BURST, 'one line each');

    const ok = byId.get('burst-1')!;
    assert.is(ok['route'], 'tms.v1.EventService.SearchEvents');
    assert.is(ok['protocol'], 'rest');
    assert.is(ok['status'], 200);
    assert.is(ok['code'], 'ok');
    assert.is(ok['path'], '/v1/search-events');
    assert.is(typeof ok['duration_ms'], 'number');
    assert.match(String(ok['key_id']), /^key_/);
    assert.is(ok['account'], 'admin');
    assert.match(String(ok['client']), /^(::ffff:)?127\.0\.0\.1$/);
    const bad = byId.get('burst-0')!;
    assert.is(bad['status'], 400);
    assert.is(bad['code'], 'invalid_argument');
  } finally {
    const code = await server.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(`${dataDir}.stdout`, { force: true });
    assert.is(code, 0);
  }
});

test('a request whose client leaves before the answer is logged too, as canceled (499)', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tms-request-log-'));
  const server = await startServeProcess(dataDir, { args: ['--admin-key', KEY, '--rate-limit', '0'] });
  try {
    const socket = connect({ host: '127.0.0.1', port: server.port });
    await new Promise((resolve) => socket.once('connect', resolve));
    // Headers and half of the promised body: the server is waiting for the rest when the client goes. Its
    // `100 Continue` shows that the request reached the handler, however loaded the machine is.
    const continued = new Promise((resolve) => socket.once('data', resolve));
    socket.write(
      'POST /v1/create-timeline HTTP/1.1\r\nHost: x\r\nx-request-id: walked-away\r\nExpect: 100-continue\r\n' +
        `Authorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 80\r\n\r\n`,
    );
    assert.match(String(await continued), /^HTTP\/1\.1 100 Continue/);
    socket.write('{"base_timeline_id":');
    socket.destroy();

    let line: Record<string, unknown> | undefined;
    for (let tries = 0; tries < 250 && !line; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      line = requestLines(server).find((entry) => entry['req_id'] === 'walked-away');
    }
    assert.ok(line, 'the abandoned request has its log line');
    assert.is(line['code'], 'canceled');
    assert.is(line['status'], 499);
    assert.is(line['route'], 'tms.v1.TimelineService.CreateTimeline');
    const metrics = await call(server, 'GET', '/metrics', { key: null });
    assert.match(metrics.text, /tms_requests_total\{route="tms\.v1\.TimelineService\.CreateTimeline",protocol="rest",code="canceled"\} 1/);
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(`${dataDir}.stdout`, { force: true });
  }
});

test('a request refused for its rate is logged with the credential and account it came with', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tms-request-log-'));
  const server = await startServeProcess(dataDir, { args: ['--admin-key', KEY, '--rate-limit', '0.25'] });
  try {
    let refusedId: string | undefined;
    for (let i = 0; i < 10 && !refusedId; i++) {
      const id = `throttled-${i}`;
      if ((await call(server, 'GET', '/v1/timelines', { key: KEY, headers: { 'x-request-id': id } })).status === 429) refusedId = id;
    }
    assert.ok(refusedId, 'the rate limit refused one');
    assert.is((await call(server, 'GET', '/healthz', { key: null })).status, 200);
    const line = requestLines(server).find((entry) => entry['req_id'] === refusedId);
    assert.is(line?.['status'], 429);
    assert.is(line?.['code'], 'resource_exhausted');
    assert.match(String(line?.['key_id']), /^key_/);
    assert.is(line?.['account'], 'admin');
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(`${dataDir}.stdout`, { force: true });
  }
});

test('share tokens in a path or a query string are not written to the log', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tms-request-log-'));
  const server = await startServeProcess(dataDir, { args: ['--admin-key', KEY, '--rate-limit', '0'] });
  try {
    const inPath = await call(server, 'GET', '/v1/console/shared/shr_secretInPath-0123', { key: KEY, headers: { 'x-request-id': 'token-in-path' } });
    const inQuery = await call(server, 'GET', '/v1/console/requests/req_abc?share_token=shr_secretInQuery_4567', { key: KEY, headers: { 'x-request-id': 'token-in-query' } });
    assert.is(inPath.status, 404);
    assert.is(inQuery.status, 400);
    assert.is((await call(server, 'GET', '/healthz', { key: null })).status, 200);
    const byId = new Map(requestLines(server).map((line) => [line['req_id'], line]));
    assert.is(byId.get('token-in-path')?.['path'], '/v1/console/shared/shr_[redacted]');
    assert.is(byId.get('token-in-query')?.['path'], '/v1/console/requests/req_abc?share_token=shr_[redacted]');
    assert.not.match(server.output(), /secretIn/);
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(`${dataDir}.stdout`, { force: true });
  }
});

test('calls connect-node reads (gRPC-Web, a compressed body, health) are logged by their RPC and how they ended', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tms-request-log-'));
  const server = await startServeProcess(dataDir, { args: ['--admin-key', KEY, '--rate-limit', '0'] });
  try {
    const search = '/tms.v1.EventService/SearchEvents';
    const framed = (message: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, 0, 0]), message]).fill(message.length, 4, 5);
    const calls: [id: string, path: string, contentType: string, body: Buffer, extra?: Record<string, string>][] = [
      ['web-ok', search, 'application/grpc-web+json', framed(Buffer.from('{"location":"Paris"}'))],
      ['web-garbage', search, 'application/grpc-web+proto', framed(Buffer.from([0xff, 0xff, 0xff]))],
      ['zipped-bad', search, 'application/json', gzipSync('{"page_size":"many"}'), { 'content-encoding': 'gzip' }],
      ['health', '/grpc.health.v1.Health/Check', 'application/json', Buffer.from('{}')],
      ['no-such-rpc', '/tms.v1.EventService/NoSuchMethod', 'application/grpc-web+json', framed(Buffer.from('{}'))],
    ];
    const answers = new Map<string, { status: number; json: { code?: string } }>();
    for (const [id, path, contentType, body, extra] of calls) {
      answers.set(id, await call(server, 'POST', path, { key: KEY, rawBody: body, headers: { 'content-type': contentType, 'x-request-id': id, ...extra } }));
    }
    assert.is((await call(server, 'GET', '/healthz', { key: null })).status, 200);
    const byId = new Map(requestLines(server).map((line) => [line['req_id'], line]));
    const logged = (id: string) => [byId.get(id)?.['protocol'], byId.get(id)?.['route'], byId.get(id)?.['code']];
    assert.equal(logged('web-ok'), ['grpc-web', 'tms.v1.EventService.SearchEvents', 'ok']);
    // gRPC-Web gives its status in a trailer of the body: a call that failed before any handler ran is not ok.
    assert.equal(logged('web-garbage'), ['grpc-web', 'tms.v1.EventService.SearchEvents', 'unknown']);
    const zipped = answers.get('zipped-bad')!;
    assert.is.not(zipped.status, 200);
    assert.equal(logged('zipped-bad'), ['connect', 'tms.v1.EventService.SearchEvents', zipped.json.code], 'the code the client was given');
    assert.equal(logged('health'), ['connect', 'grpc.health.v1.Health.Check', 'ok']);
    assert.equal(logged('no-such-rpc'), ['grpc-web', 'unmatched', 'unimplemented'], 'an unknown path is not a route of its own');
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(`${dataDir}.stdout`, { force: true });
  }
});

test('an HTTP/2 call its client cancels is logged as canceled (499) even when its answer is written, on every RPC protocol', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tms-request-log-'));
  const server = await startServeProcess(dataDir, { args: ['--admin-key', KEY, '--rate-limit', '0'] });
  try {
    // The client lets the server send headers but no data: each answer is written and waits to be sent when the
    // client resets its stream, as a client that cancels (grpc-js, Node's `stream.close`) may do after ending its body.
    const getPrimary = Buffer.from([0x0a, 7, ...Buffer.from('primary')]);
    const envelope = (flags: number, message: Buffer) => Buffer.concat([Buffer.from([flags, 0, 0, 0, message.length]), message]);
    const calls: [id: string, contentType: string, body: Buffer, extra?: Record<string, string>][] = [
      ['cancel-grpc', 'application/grpc', envelope(0, getPrimary)],
      ['cancel-grpc-gzip', 'application/grpc', envelope(1, gzipSync(getPrimary)), { 'grpc-encoding': 'gzip' }],
      ['cancel-grpc-web', 'application/grpc-web+proto', envelope(0, getPrimary)],
      ['cancel-connect', 'application/proto', getPrimary],
    ];
    const client = await rawHttp2(server.port, { streamWindow: 0 });
    for (const [i, [id, contentType, body, extra]] of calls.entries()) {
      const stream = 2 * i + 1;
      const headers = literalHeaders({
        ':method': 'POST',
        ':scheme': 'http',
        ':authority': 'tms',
        ':path': '/tms.v1.TimelineService/GetTimeline',
        'content-type': contentType,
        authorization: `Bearer ${KEY}`,
        'x-request-id': id,
        te: 'trailers',
        ...extra,
      });
      client.socket.write(Buffer.concat([frame(FRAME.headers, FLAG.endHeaders, stream, headers), frame(FRAME.data, FLAG.endStream, stream, body)]));
      await client.frameFrom(FRAME.headers, stream);
      client.socket.write(rstStream(stream, CANCEL));
    }
    const loggedLines = () => new Map(requestLines(server).map((line) => [line['req_id'], line]));
    await eventually('a log line for each cancelled call', () => calls.every(([id]) => loggedLines().has(id)));
    client.socket.destroy();
    const lines = loggedLines();
    for (const [id] of calls) {
      assert.equal([lines.get(id)?.['code'], lines.get(id)?.['status']], ['canceled', 499], id);
    }
    const metrics = await call(server, 'GET', '/metrics', { key: null });
    assert.match(metrics.text, /tms_requests_total\{route="tms\.v1\.TimelineService\.GetTimeline",protocol="grpc",code="canceled"\} 2/);
    assert.not.match(metrics.text, /route="tms\.v1\.TimelineService\.GetTimeline",protocol="grpc",code="ok"/);
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(`${dataDir}.stdout`, { force: true });
  }
});

/** Writes raw bytes on a new connection and reads until the server closes it. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write(bytes));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.once('error', reject);
    socket.once('close', () => resolve(text));
  });
}

test('an answer Node\'s HTTP parser calls for (bytes that are not HTTP, headers too late) is logged and counted', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tms-request-log-'));
  const server = await startServeProcess(dataDir, { args: ['--admin-key', KEY, '--rate-limit', '0', '--request-timeout-ms', '500'] });
  try {
    const junk = await rawExchange(server.port, 'HELLO THERE\r\n\r\n');
    const late = await rawExchange(server.port, 'GET /v1/timelines HTTP/1.1\r\nHost: x\r\n');
    const idOf = (answer: string) => /\r\nx-request-id: ([\w-]+)\r\n/.exec(answer)?.[1];
    assert.match(junk, /^HTTP\/1\.1 400 /);
    assert.match(late, /^HTTP\/1\.1 408 /);

    const linesOf = () => {
      const byId = new Map(requestLines(server).map((line) => [line['req_id'], line]));
      return [byId.get(idOf(junk)), byId.get(idOf(late))];
    };
    await eventually('both answers logged', () => linesOf().every(Boolean));
    const [junkLine, lateLine] = linesOf();
    assert.equal(
      { status: junkLine!['status'], code: junkLine!['code'], route: junkLine!['route'], protocol: junkLine!['protocol'] },
      { status: 400, code: 'invalid_argument', route: 'unmatched', protocol: 'http' },
    );
    assert.match(String(junkLine!['client']), /^127\.0\.0\.1$/);
    assert.equal({ status: lateLine!['status'], code: lateLine!['code'] }, { status: 408, code: 'deadline_exceeded' });

    const metrics = await call(server, 'GET', '/metrics', { key: null });
    assert.match(metrics.text, /tms_requests_total\{route="unmatched",protocol="http",code="invalid_argument"\} 1\n/);
    assert.match(metrics.text, /tms_requests_total\{route="unmatched",protocol="http",code="deadline_exceeded"\} 1\n/);
    // No handler timed them: they have no latency to observe.
    assert.not.match(metrics.text, /tms_request_duration_seconds_count\{route="unmatched",protocol="http",code="invalid_argument"\}/);
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(`${dataDir}.stdout`, { force: true });
  }
});

test('a request a handler holds that Node\'s parser answers (its body too late) is logged once, by its route, as answered', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tms-request-log-'));
  const server = await startServeProcess(dataDir, { args: ['--admin-key', KEY, '--rate-limit', '0', '--request-timeout-ms', '500'] });
  try {
    // A compressed Connect body is read by connect-node, before any deadline of tms's own: Node's request timeout answers.
    const answer = await rawExchange(
      server.port,
      'POST /tms.v1.TimelineService/CreateTimeline HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n' +
        `Authorization: Bearer ${KEY}\r\nx-request-id: trickled\r\nContent-Length: 100\r\n\r\n0123456789`,
    );
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.match(answer, /\r\nx-request-id: trickled\r\n/);
    await eventually('its line', () => requestLines(server).some((line) => line['req_id'] === 'trickled'));
    await call(server, 'GET', '/healthz', { key: null });
    const lines = requestLines(server).filter((line) => line['req_id'] === 'trickled' || line['route'] === 'unmatched');
    assert.equal(
      lines.map((line) => [line['req_id'], line['route'], line['status'], line['code']]),
      [['trickled', 'tms.v1.TimelineService.CreateTimeline', 408, 'deadline_exceeded']],
      'one line, under its route, with the answer the client got',
    );
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(`${dataDir}.stdout`, { force: true });
  }
});

test.run();
