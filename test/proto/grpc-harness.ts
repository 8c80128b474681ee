// A real HTTP/2 (h2c) server on an ephemeral port serving a Connect router, and a real @grpc/grpc-js client
// to it (the calls: test/support/grpc.ts).
import { createServer } from 'node:http2';
import type { Http2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { ConnectRouter } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { Client, credentials } from '@grpc/grpc-js';

export interface Harness {
  client: Client;
  port: number;
  close(): Promise<void>;
}

export async function startHarness(routes: (router: ConnectRouter) => void): Promise<Harness> {
  const server = createServer(connectNodeAdapter({ routes }));
  const sessions = new Set<Http2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
  return {
    client,
    port,
    async close() {
      client.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.destroy();
      await closed;
    },
  };
}
