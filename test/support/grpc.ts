import { Client, credentials, Metadata, status, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import { fromBinary, fromJson, toBinary, toJson, type JsonValue, type Message } from '@bufbuild/protobuf';
import { rpcMethods } from '../../src/server/connect/services.ts';
import { ADMIN_KEY } from './server.ts';

export interface GrpcResult {
  code: number;
  /** gRPC status name in snake_case, e.g. `not_found` ('ok' on success), to compare with REST codes. */
  codeName: string;
  message: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read whatever came back
  /** The text metadata the call ended with (trailers, or the headers of a trailers-only answer), e.g. `retry-after`. */
  trailers: Record<string, string>;
}

const names = Object.fromEntries(Object.entries(status).map(([name, code]) => [code, name.toLowerCase()])) as Record<number, string>;

/** A real @grpc/grpc-js client calling an RPC by name with a proto-JSON request. */
export function grpcCall(port: number, rpc: string, request: Record<string, unknown>, key: string | null = ADMIN_KEY): Promise<GrpcResult> {
  const method = rpcMethods.get(rpc);
  if (!method) throw new Error(`unknown rpc ${rpc}`);
  const client = new Client(`127.0.0.1:${port}`, credentials.createInsecure());
  const metadata = new Metadata();
  if (key !== null) metadata.set('authorization', `Bearer ${key}`);
  const path = `/${method.parent.typeName}/${method.name}`;
  return new Promise((resolve) => {
    let result: Omit<GrpcResult, 'trailers'>;
    const call = client.makeUnaryRequest(
      path,
      (m: Message) => Buffer.from(toBinary(method.input, m)),
      (b: Buffer) => fromBinary(method.output, b),
      fromJson(method.input, request as JsonValue),
      metadata,
      (error: ServiceError | null, response?: Message) => {
        // connect-node percent-encodes grpc-message beyond what grpc-js decodes (':' '/' ','), so finish the decoding.
        if (error) result = { code: error.code, codeName: names[error.code] ?? 'unknown', message: decodeURIComponent(error.details), json: undefined };
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
