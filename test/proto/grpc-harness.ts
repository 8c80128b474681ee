// A real HTTP/2 (h2c) server on an ephemeral port serving a Connect router, and a real @grpc/grpc-js
// client speaking to it with protobuf-es serializers.
import { createServer } from 'node:http2';
import type { Http2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { fromBinary, toBinary } from '@bufbuild/protobuf';
import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import type { ConnectRouter } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { Client, credentials } from '@grpc/grpc-js';
import type { ClientDuplexStream, ClientReadableStream, ServiceError } from '@grpc/grpc-js';

export interface Harness {
  client: Client;
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
    async close() {
      client.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.destroy();
      await closed;
    },
  };
}

const serialize =
  <T extends DescMessage>(schema: T) =>
  (message: MessageShape<T>): Buffer =>
    Buffer.from(toBinary(schema, message));
const deserialize =
  <T extends DescMessage>(schema: T) =>
  (bytes: Buffer): MessageShape<T> =>
    fromBinary(schema, bytes);

export function unary<I extends DescMessage, O extends DescMessage>(
  client: Client,
  path: string,
  input: I,
  output: O,
  request: MessageShape<I>,
): Promise<MessageShape<O>> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(path, serialize(input), deserialize(output), request, (error, response) => {
      if (error) reject(error);
      else resolve(response!);
    });
  });
}

export function serverStream<I extends DescMessage, O extends DescMessage>(
  client: Client,
  path: string,
  input: I,
  output: O,
  request: MessageShape<I>,
): ClientReadableStream<MessageShape<O>> {
  return client.makeServerStreamRequest(path, serialize(input), deserialize(output), request);
}

export function bidiStream<I extends DescMessage, O extends DescMessage>(
  client: Client,
  path: string,
  input: I,
  output: O,
): ClientDuplexStream<MessageShape<I>, MessageShape<O>> {
  return client.makeBidiStreamRequest(path, serialize(input), deserialize(output));
}

/** Reads a stream one message at a time; rejects if the stream fails or ends first. */
export function reader<T>(stream: NodeJS.ReadableStream): { next(): Promise<T> } {
  const iterator = stream[Symbol.asyncIterator]();
  return {
    async next() {
      const result = await iterator.next();
      if (result.done) throw new Error('stream ended before the next message');
      return result.value as T;
    },
  };
}

export function isServiceError(error: unknown): error is ServiceError {
  return error instanceof Error && typeof (error as Partial<ServiceError>).code === 'number';
}

export async function eventually(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
