// The gRPC baseline: a grpc-js server whose SearchEvents answers every call with the same protobuf bytes
// (a reply of the size tms sends), with no decoding, lookup or checks.
import { Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';

const reply = Buffer.from(process.argv[2] ?? '', 'base64');
const bytes = (value: Buffer) => value;
const server = new Server();
server.addService(
  {
    SearchEvents: {
      path: '/tms.v1.EventService/SearchEvents',
      requestStream: false,
      responseStream: false,
      requestSerialize: bytes,
      requestDeserialize: bytes,
      responseSerialize: bytes,
      responseDeserialize: bytes,
    },
  },
  {
    SearchEvents: (_call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => callback(null, reply),
  },
);
server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, port) => {
  if (error) throw error;
  process.stdout.write(`listening on grpc://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => server.tryShutdown(() => process.exit(0)));
