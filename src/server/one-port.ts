import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  createServer as createHttp2Server,
  type Http2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type ServerHttp2Session,
} from 'node:http2';

export type AnyRequest = IncomingMessage | Http2ServerRequest;
export type AnyResponse = ServerResponse | Http2ServerResponse;
export type RequestHandler = (req: AnyRequest, res: AnyResponse) => void;

export interface OnePortServer {
  listen(port: number, host: string): Promise<{ port: number }>;
  /** Stops accepting, lets in-flight requests finish, then closes idle connections. */
  close(graceMs: number): Promise<void>;
  readonly inFlight: number;
}

const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

/**
 * One port for HTTP/1.1 and HTTP/2 (gRPC needs h2; browsers and curl use HTTP/1.1). Cleartext h2 has no
 * ALPN, so the first bytes of each connection decide: the HTTP/2 preface goes to the h2 server, anything
 * else to the HTTP/1.1 server. With TLS, ALPN decides, handing the decrypted connection to the same two
 * servers, so both paths share the HTTP/1.1 timeouts and the graceful close of HTTP/2 sessions.
 */
export interface OnePortOptions {
  tls?: { cert: Buffer; key: Buffer };
  /** HTTP/1.1: the whole request (headers and body) must arrive within this (Node answers 408 beyond). */
  requestTimeoutMs?: number;
}

export function createOnePortServer(handler: RequestHandler, options: OnePortOptions = {}): OnePortServer {
  const { tls } = options;
  let inFlight = 0;
  const tracked: RequestHandler = (req, res) => {
    inFlight++;
    res.once('close', () => inFlight--);
    handler(req, res);
  };

  const sockets = new Set<Socket>();
  const sessions = new Set<ServerHttp2Session>();
  const h1 = createHttpServer({ keepAliveTimeout: 65_000, ...(options.requestTimeoutMs && { requestTimeout: options.requestTimeoutMs }) }, tracked);
  const h2: Http2Server = createHttp2Server({}, tracked);
  h2.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  const front: NetServer = tls
    ? createTlsServer({ cert: tls.cert, key: tls.key, ALPNProtocols: ['h2', 'http/1.1'], noDelay: true }, (socket: TLSSocket) =>
        (socket.alpnProtocol === 'h2' ? h2 : h1).emit('connection', socket),
      )
    : createNetServer({ noDelay: true }, (socket) => routeBySniffing(socket, h1, h2));
  front.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  return {
    get inFlight() {
      return inFlight;
    },
    listen(port, host) {
      return new Promise((resolve, reject) => {
        front.once('error', reject);
        front.listen(port, host, () => {
          front.off('error', reject);
          const address = front.address();
          resolve({ port: typeof address === 'object' && address ? address.port : port });
        });
      });
    },
    async close(graceMs) {
      const closed = new Promise<void>((resolve) => front.close(() => resolve()));
      h1.closeIdleConnections();
      for (const session of sessions) session.close();
      const deadline = Date.now() + graceMs;
      while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      h1.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

function routeBySniffing(socket: Socket, h1: ReturnType<typeof createHttpServer>, h2: Http2Server): void {
  socket.once('readable', () => {
    const head: Buffer | null = socket.read(Math.min(HTTP2_PREFACE.length, socket.readableLength)) ?? socket.read();
    if (!head) {
      // The peer closed before sending anything.
      socket.destroy();
      return;
    }
    socket.unshift(head);
    const isHttp2 = head.equals(HTTP2_PREFACE.subarray(0, head.length)) && head.length >= 3;
    (isHttp2 ? h2 : h1).emit('connection', socket);
  });
}

