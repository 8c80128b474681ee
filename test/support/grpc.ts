// Real @grpc/grpc-js clients with protobuf-es serializers: typed calls (unary, streams) and calls by RPC name.
import { Client, credentials, Metadata, status, type ClientDuplexStream, type ClientReadableStream, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { fromBinary, fromJson, toBinary, toJson, type DescMessage, type JsonValue, type Message, type MessageShape } from '@bufbuild/protobuf';
import { rpcMethods } from '../../src/server/connect/services.ts';
import { ADMIN_KEY } from './admin-key.ts';

export interface GrpcResult {
  code: number;
  /** gRPC status name in snake_case, e.g. `not_found` ('ok' on success), to compare with REST codes. */
  codeName: string;
  message: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read whatever came back
  /** The text metadata the call ended with (trailers, or the headers of a trailers-only answer), e.g. `retry-after`. */
  trailers: Record<string, string>;
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
  metadata: Metadata = new Metadata(),
): Promise<MessageShape<O>> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(path, serialize(input), deserialize(output), request, metadata, (error, response) => {
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

/** Metadata carrying `Authorization: Bearer <key>` (none for null). */
export function authorizedBy(key: string | null): Metadata {
  const metadata = new Metadata();
  if (key !== null) metadata.set('authorization', `Bearer ${key}`);
  return metadata;
}

const names = Object.fromEntries(Object.entries(status).map(([name, code]) => [code, name.toLowerCase()])) as Record<number, string>;

/** A real @grpc/grpc-js client calling an RPC by name with a proto-JSON request. */
export function grpcCall(port: number, rpc: string, request: Record<string, unknown>, key: string | null = ADMIN_KEY): Promise<GrpcResult> {
  const method = rpcMethods.get(rpc);
  if (!method) throw new Error(`unknown rpc ${rpc}`);
  const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
  const path = `/${method.parent.typeName}/${method.name}`;
  return new Promise((resolve) => {
    let result: Omit<GrpcResult, 'trailers'>;
    const call = client.makeUnaryRequest(
      path,
      serialize(method.input) as (m: Message) => Buffer,
      deserialize(method.output) as (b: Buffer) => Message,
      fromJson(method.input, request as JsonValue),
      authorizedBy(key),
      (error: ServiceError | null, response?: Message) => {
        // grpc-js decodes grpc-message itself: the text here is the client's own reading.
        if (error) result = { code: error.code, codeName: names[error.code] ?? 'unknown', message: error.details, json: undefined };
        else result = { code: 0, codeName: 'ok', message: '', json: toJson(method.output, response!, { useProtoFieldName: true }) };
      },
    );
    // grpc-js calls back first, then reports the status with its metadata.
    call.on('status', (status: StatusObject) => {
      client.close();
      const trailers: Record<string, string> = {};
      for (const [name, value] of Object.entries(status.metadata.getMap())) if (typeof value === 'string') trailers[name] = value;
      resolve({ ...result, trailers });
    });
  });
}
