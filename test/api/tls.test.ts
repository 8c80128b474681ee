import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request as httpsRequest } from 'node:https';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { create } from '@bufbuild/protobuf';
import { Client, credentials } from '@grpc/grpc-js';
import { EventService, SearchEventsRequestSchema, SearchEventsResponseSchema } from '../../src/gen/tms/v1/event_service_pb.ts';
import { ADMIN_KEY, startTestServer, type TestServer } from '../support/server.ts';
import { authorizedBy, unary } from '../support/grpc.ts';
import { asAdmin, connectSuite } from '../support/connect.ts';

const fixtures = join(import.meta.dirname, 'fixtures');
const tlsCert = join(fixtures, 'tls-test-cert.pem');
const ca = readFileSync(tlsCert);

const tls = connectSuite<{ server: TestServer }>('TLS: one port serves HTTP/1.1 and HTTP/2 by ALPN');
tls.before(async (ctx) => {
  ctx.server = await startTestServer({ tlsCert, tlsKey: join(fixtures, 'tls-test-key.pem') });
});
tls.after(async (ctx) => {
  await ctx.server.stop();
});

/** An HTTPS request that says which protocol ALPN chose. */
function https(server: TestServer, path: string, body?: unknown, ALPNProtocols?: string[]): Promise<{ status: number; alpn: string | false; json: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read whatever came back
  const text = body === undefined ? '' : JSON.stringify(body);
  const headers = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) };
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port: server.port, method: 'GET', path, ca, servername: 'localhost', headers, agent: false, ...(ALPNProtocols && { ALPNProtocols }) },
      (res) => {
        const alpn = (res.socket as TLSSocket).alpnProtocol ?? false;
        let reply = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (reply += chunk));
        res.once('end', () => resolve({ status: res.statusCode ?? 0, alpn, json: JSON.parse(reply) }));
      },
    );
    req.once('error', reject);
    req.end(text);
  });
}

tls('the service URL is https and ALPN offers h2 and http/1.1', async ({ server }) => {
  assert.match(server.url, /^https:\/\//);
  for (const protocol of ['h2', 'http/1.1']) {
    const chosen = await new Promise<string | false>((resolve, reject) => {
      const socket = tlsConnect({ host: '127.0.0.1', port: server.port, ca, servername: 'localhost', ALPNProtocols: [protocol] }, () => {
        resolve(socket.alpnProtocol ?? false);
        socket.end();
      });
      socket.once('error', reject);
    });
    assert.is(chosen, protocol);
  }
});

tls('REST over HTTP/1.1 with TLS: GET with a JSON body; a client that offers no ALPN gets HTTP/1.1 too', async ({ server }) => {
  const search = await https(server, '/v1/search-events', { location: 'Paris', page_size: 2 }, ['http/1.1']);
  assert.is(search.status, 200, JSON.stringify(search.json));
  assert.is(search.alpn, 'http/1.1');
  assert.is(search.json.events.length, 2);
  const health = await https(server, '/healthz');
  assert.is(health.alpn, false, 'no ALPN offered');
  assert.equal([health.status, health.json.status], [200, 'SERVING']);
});

tls('a Connect client over HTTP/2 with TLS', async ({ server }) => {
  const transport = createConnectTransport({ baseUrl: server.url.replace('127.0.0.1', 'localhost'), httpVersion: '2', nodeOptions: { ca }, interceptors: [asAdmin] });
  const page = await createClient(EventService, transport).searchEvents({ location: 'London', pageSize: 3 });
  assert.is(page.events.length, 3);
});

tls('a grpc-js client with TLS credentials', async ({ server }) => {
  const client = new Client(`localhost:${server.port}`, credentials.createSsl(ca));
  try {
    const page = await unary(
      client,
      '/tms.v1.EventService/SearchEvents',
      SearchEventsRequestSchema,
      SearchEventsResponseSchema,
      create(SearchEventsRequestSchema, { location: 'Rome', pageSize: 4 }),
      authorizedBy(ADMIN_KEY),
    );
    assert.is(page.events.length, 4);
  } finally {
    client.close();
  }
});

tls.run();
