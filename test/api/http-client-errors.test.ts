import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/server.ts';

const TIMEOUT_MS = 600;
const fixtures = join(import.meta.dirname, 'fixtures');
const tls = { tlsCert: join(fixtures, 'tls-test-cert.pem'), tlsKey: join(fixtures, 'tls-test-key.pem') };
const ca = readFileSync(tls.tlsCert);

interface Raw {
  status: number;
  requestId: string | undefined;
  json: { code: string; message: string };
  elapsedMs: number;
  /** Everything the server sent; the other fields describe the last response in it. */
  text: string;
}

/**
 * Sends raw bytes on a new connection (parts one by one, a few milliseconds apart, as separate reads) and reads
 * whatever comes back until the server closes it.
 */
function raw(server: TestServer, secure: boolean, bytes: string | string[]): Promise<Raw> {
  const send = async () => {
    for (const part of typeof bytes === 'string' ? [bytes] : bytes) {
      if (socket.destroyed || socket.readableEnded) return;
      socket.write(part);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const socket: Socket = secure
    ? tlsConnect({ host: '127.0.0.1', port: server.port, ca, servername: 'localhost', ALPNProtocols: ['http/1.1'] }, () => void send())
    : netConnect({ host: '127.0.0.1', port: server.port }, () => void send());
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let text = '';
    // A server that never answers must fail the test, not hang it.
    socket.setTimeout(TIMEOUT_MS * 5, () => socket.destroy());
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    // Writing on after the server closed its side (the junk tests) is the client's affair: what the server sent
    // before it closed is what is asserted.
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') reject(error);
    });
    socket.once('close', () => {
      // A status line starts the text or follows the previous response's JSON body.
      const starts = [...text.matchAll(/(?:^|(?<=\}))HTTP\/1\.1 \d{3} /g)].map((match) => match.index);
      const last = text.slice(starts.at(-1) ?? 0);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(last)?.[1] ?? 0);
      const body = last.slice(last.indexOf('\r\n\r\n') + 4);
      const requestId = /\r\nx-request-id: ([\w-]+)\r\n/i.exec(last)?.[1];
      resolve({ status, requestId, json: (body ? JSON.parse(body) : {}) as Raw['json'], elapsedMs: performance.now() - started, text });
    });
  });
}

for (const secure of [false, true]) {
  const transport = secure ? 'TLS' : 'cleartext';
  const errors = suite<{ server: TestServer }>(`HTTP/1.1 errors before a request reaches a route (${transport})`);
  errors.before(async (ctx) => {
    ctx.server = await startTestServer({ requestTimeoutMs: TIMEOUT_MS, ...(secure && tls) });
  });
  errors.after(async (ctx) => {
    await ctx.server.stop();
  });

  errors('headers that never finish get 408 deadline_exceeded in the error JSON, then the connection closes', async ({ server }) => {
    const res = await raw(server, secure, 'GET /v1/search-events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ');
    assert.is(res.status, 408);
    assert.ok(res.requestId, 'x-request-id on the 408');
    assert.is(res.json.code, 'deadline_exceeded');
    assert.match(res.json.message, new RegExp(`not received within ${TIMEOUT_MS} ms \\(TMS_REQUEST_TIMEOUT_MS\\)`));
    assert.ok(res.elapsedMs >= TIMEOUT_MS, `not before the limit (${res.elapsedMs} ms)`);
  });

  errors('bytes that are not HTTP/1.1 get 400 invalid_argument in the error JSON', async ({ server }) => {
    const res = await raw(server, secure, 'HELLO THERE\r\n\r\n');
    assert.is(res.status, 400);
    assert.ok(res.requestId, 'x-request-id on the 400');
    assert.is(res.json.code, 'invalid_argument');
    assert.match(res.json.message, /^request: not valid HTTP\/1\.1/);
  });

  errors('a JSON body sent after a GET without Content-Length: the GET is answered first, then a 400 says what probably happened', async ({ server }) => {
    const res = await raw(
      server,
      secure,
      `GET /v1/timelines HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nContent-Type: application/json\r\n\r\n{"page_size":10}`,
    );
    assert.match(res.text, /^HTTP\/1\.1 200 [^]*"timeline_id":"primary"[^]*\}HTTP\/1\.1 400 /, `the GET's answer, then the 400: ${res.text}`);
    assert.is(res.text.match(/HTTP\/1\.1 \d{3} /g)?.length, 2);
    assert.is(res.status, 400);
    assert.is(res.json.code, 'invalid_argument');
    assert.is(
      res.json.message,
      'request: not valid HTTP/1.1 (HPE_INVALID_METHOD); this looks like a JSON body sent without Content-Length: a body needs Content-Length (or chunked encoding)',
    );
  });

  errors('a bad chunk inside a request body gets its 400 at once, not the deadline\'s answer', async ({ server }) => {
    const res = await raw(
      server,
      secure,
      `POST /v1/create-timeline HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
    );
    assert.is(res.text.match(/HTTP\/1\.1 \d{3} /g)?.length, 1, res.text);
    assert.is(res.status, 400, res.text);
    assert.is(res.json.code, 'invalid_argument');
    assert.is(res.json.message, 'request: not valid HTTP/1.1 (HPE_INVALID_CHUNK_SIZE)');
    const list = await raw(server, secure, `GET /v1/timelines HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nConnection: close\r\n\r\n`);
    assert.is((list.json as unknown as { timelines: unknown[] }).timelines.length, 1, 'nothing was created');
  });

  errors('junk that keeps coming after a parse error gets one 400 and a closed connection', async ({ server }) => {
    const junk = Array.from({ length: 50 }, () => 'x'.repeat(16 * 1024));
    const res = await raw(server, secure, [
      `POST /tms.v1.TimelineService/CreateTimeline HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
      ...junk,
    ]);
    assert.is(res.text.match(/HTTP\/1\.1 \d{3} /g)?.length, 1, res.text);
    assert.is(res.status, 400);
    assert.is(res.json.message, 'request: not valid HTTP/1.1 (HPE_INVALID_CHUNK_SIZE)');
  });

  errors.run();
}
