import { setTrailerStatus } from '@connectrpc/connect/protocol-grpc';
import type { ConnectError } from '@connectrpc/connect';
import type { AnyResponse } from '../one-port.ts';
import { withGrpcMessageEncoded } from './grpc-message.ts';

/**
 * A gRPC or gRPC-Web answer that is only a status, where its clients read one (not the HTTP status): gRPC over
 * HTTP/2 in trailers; gRPC-Web, which browsers cannot read HTTP trailers for, and anything over HTTP/1.1 in the head,
 * as a trailers-only answer.
 */
export function sendGrpcStatus(res: AnyResponse, httpVersionMajor: number, contentType: string, error: ConnectError): void {
  let status: Record<string, string> = {};
  setTrailerStatus(new Headers(), error).forEach((value, name) => (status[name] = value));
  status = withGrpcMessageEncoded(status);
  if (httpVersionMajor === 2 && !contentType.startsWith('application/grpc-web')) {
    res.writeHead(200, { 'content-type': contentType });
    res.addTrailers(status);
  } else {
    res.writeHead(200, { 'content-type': contentType, ...status });
  }
  res.end();
}
