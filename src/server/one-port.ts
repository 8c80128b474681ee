import { randomUUID } from 'node:crypto';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { createServer as createHttpServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  createServer as createHttp2Server,
  type Http2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type ServerHttp2Session,
} from 'node:http2';
import { ApiError, invalidArgument } from '../domain/errors.ts';
import { errorBody } from './errors.ts';
import { limitHttp2Body } from './http2-body-limit.ts';

export type AnyRequest = IncomingMessage | Http2ServerRequest;
export type AnyResponse = ServerResponse | Http2ServerResponse;
export type RequestHandler = (req: AnyRequest, res: AnyResponse) => void;

export interface OnePortServer {
  listen(port: number, host: string): Promise<{ port: number }>;
  /**
   * Stops accepting, lets in-flight requests finish within `graceMs`, then closes every connection. Resolves with
   * how many requests were still in flight when the grace ended: those were cut.
   */
  close(graceMs: number): Promise<number>;
  readonly inFlight: number;
}

/** An HTTP/1.1 answer Node's parser called for (see `answerClientError`). */
export interface ClientErrorAnswer {
  requestId: string;
  /** The connection's peer address (no request headers were read to find a client behind a proxy). */
  peer: string | undefined;
  status: number;
  code: string;
}

const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
/** How often the HTTP/1.1 server looks for requests past their time limit (Node's default is 30 s). */
const CHECK_EVERY_MS = 1000;

/**
 * One port for HTTP/1.1 and HTTP/2 (gRPC needs h2; browsers and curl use HTTP/1.1). Cleartext h2 has no
 * ALPN, so the first bytes of each connection decide: the HTTP/2 preface goes to the h2 server, anything
 * else to the HTTP/1.1 server. With TLS, ALPN decides, handing the decrypted connection to the same two
 * servers, so both paths share the HTTP/1.1 timeouts and the graceful close of HTTP/2 sessions.
 */
export interface OnePortOptions {
  tls?: { cert: Buffer; key: Buffer };
  /**
   * Headers must arrive within this (HTTP/1.1: 408 in the error JSON beyond); see requestTimeouts for the body, which
   * HTTP/2 requests are held to the same way (limitHttp2Body).
   */
  requestTimeoutMs?: number;
  /** Told of each answer to bytes no handler holds (not HTTP/1.1, headers too large or too late). */
  onClientError?: (answer: ClientErrorAnswer) => void;
  /** How long a connection with no request in flight stays open: HTTP/1.1 keep-alive, an HTTP/2 session with no stream. */
  idleMs?: number;
}

const IDLE_MS = 65_000;

/** Responses still in flight when a shutdown's grace ended: the server closed their connections. */
const cutAtShutdown = new WeakSet<AnyResponse>();

/** Whether the server closed this response's connection at the end of a shutdown's grace (no answer went out). */
export const cutByShutdown = (res: AnyResponse): boolean => cutAtShutdown.has(res);

export function createOnePortServer(handler: RequestHandler, options: OnePortOptions = {}): OnePortServer {
  const { tls } = options;
  const inFlight = new Set<AnyResponse>();
  const tracked: RequestHandler = (req, res) => {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    if (options.requestTimeoutMs && req.httpVersionMajor === 2) {
      limitHttp2Body(req as Http2ServerRequest, res as Http2ServerResponse, options.requestTimeoutMs, requestTimeouts(options.requestTimeoutMs).requestTimeout);
    }
    handler(req, res);
  };

  const sockets = new Set<Socket>();
  const sessions = new Set<ServerHttp2Session>();
  const idleMs = options.idleMs ?? IDLE_MS;
  const h1 = createHttpServer(
    {
      keepAliveTimeout: idleMs,
      ...(options.requestTimeoutMs && requestTimeouts(options.requestTimeoutMs)),
    },
    tracked,
  );
  const h2: Http2Server = createHttp2Server({}, tracked);
  h1.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerClientError(error, socket, options));
  h2.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    closeWhenIdle(session, idleMs);
  });
  const front: NetServer = tls
    ? createTlsServer({ cert: tls.cert, key: tls.key, ALPNProtocols: ['h2', 'http/1.1'], noDelay: true }, (socket: TLSSocket) =>
        (socket.alpnProtocol === 'h2' ? h2 : h1).emit('connection', socket),
      )
    : createNetServer({ noDelay: true }, (socket) => routeBySniffing(socket, h1, h2, options.requestTimeoutMs));
  front.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  return {
    get inFlight() {
      return inFlight.size;
    },
    listen(port, host) {
      return new Promise((resolve, reject) => {
        front.once('error', reject);
        front.listen(port, host, () => {
          front.off('error', reject);
          // h1 never listens itself (it is handed connections), but Node tracks its connections (timeouts,
          // idle connections to close) only from its 'listening' event.
          h1.emit('listening');
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
      while (inFlight.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      const cut = inFlight.size;
      for (const res of inFlight) cutAtShutdown.add(res);
      h1.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      // Stops its connection checks; it was never bound, so 'not running' is expected.
      h1.close(() => {});
      await closed;
      return cut;
    },
  };
}

/**
 * Closes (GOAWAY) a session that has had no stream open for `idleMs`, as HTTP/1.1 closes an idle keep-alive
 * connection; a session that never sends a request would otherwise hold its connection for good. A stream open
 * for long (a health Watch) keeps its session.
 */
function closeWhenIdle(session: ServerHttp2Session, idleMs: number): void {
  let open = 0;
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    timer = setTimeout(() => session.close(), idleMs);
    timer.unref();
  };
  arm();
  session.on('stream', (stream) => {
    if (open++ === 0) clearTimeout(timer);
    stream.once('close', () => {
      if (--open === 0 && !session.closed && !session.destroyed) arm();
    });
  });
  session.once('close', () => clearTimeout(timer));
}

/**
 * Headers must arrive within the limit. Once they have, the request's own deadline answers (504 for REST, in
 * the handler), so Node's whole-request timeout is only a backstop one check later: for a body that still has
 * not arrived where no handler deadline runs yet (calls connect-node serves read their body before the handler starts).
 */
function requestTimeouts(limitMs: number) {
  const checkEveryMs = Math.min(CHECK_EVERY_MS, limitMs);
  return { headersTimeout: limitMs, requestTimeout: limitMs + checkEveryMs, connectionsCheckingInterval: checkEveryMs };
}

/** Requests a handler held when Node's parser answered them (a body too late or malformed): what it answered. */
const parserAnswers = new WeakMap<AnyResponse, ClientErrorAnswer>();

/** The answer Node's parser gave a request a handler held, if it did: its handler logs it as that, not as a client that left. */
export const parserAnswerOf = (res: AnyResponse): ClientErrorAnswer | undefined => parserAnswers.get(res as ServerResponse);

/** Connections whose client error is answered (or waits for the answer before it): one answer each. */
const answering = new WeakSet<Duplex>();

/**
 * What Node would answer with a bare status line (a request not received in time, headers too large, bytes
 * that are not HTTP/1.1), in the same error JSON as every other error.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, options: OnePortOptions): void {
  // Node reports every further chunk of a stream it could not parse; the first report is answered.
  if (answering.has(socket)) return;
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  answering.add(socket);
  const { status, apiError } = clientErrorStatus(error, options.requestTimeoutMs);
  // Node sets it to null once a response is done with the socket.
  const previous = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
  const held = previous !== undefined && !previous.writableEnded && !previous.req.complete;
  // The request itself is bad or late and its handler has begun an answer, which cannot be interrupted.
  if (held && previous.headersSent) {
    socket.destroy();
    return;
  }
  // A request a handler holds is answered here under its own id, and logged once, by its handler (`parserAnswerOf`).
  const heldId = held ? previous.getHeader('x-request-id') : undefined;
  const requestId = typeof heldId === 'string' ? heldId : randomUUID();
  const body = errorBody(apiError);
  const answer =
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
    `x-request-id: ${requestId}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
  const told: ClientErrorAnswer = { requestId, peer: (socket as Socket).remoteAddress, status, code: apiError.code };
  if (held) {
    // A client that ended its connection mid-request (EOF) left: its handler logs it as canceled.
    if (error.code !== 'HPE_INVALID_EOF_STATE') parserAnswers.set(previous, told);
    socket.end(answer);
    return;
  }
  options.onClientError?.(told);
  if (previous && !previous.writableEnded) {
    // Bad bytes after a complete request (e.g. an unframed body): that request's answer comes first.
    socket.pause();
    previous.once('finish', () => (socket.writable ? socket.end(answer) : socket.destroy()));
    return;
  }
  socket.end(answer);
}

function clientErrorStatus(error: NodeJS.ErrnoException, requestTimeoutMs: number | undefined): { status: number; apiError: ApiError } {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 408, apiError: new ApiError('deadline_exceeded', `request: not received within ${requestTimeoutMs} ms (TMS_REQUEST_TIMEOUT_MS)`) };
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') return { status: 431, apiError: new ApiError('resource_exhausted', 'request headers: too large') };
  return { status: 400, apiError: invalidArgument('request', `not valid HTTP/1.1 (${error.code ?? error.message})${unframedBodyHint(error)}`) };
}

/**
 * A JSON body where a request line should be: most often a GET body sent without Content-Length (Node's
 * http.request frames a GET body only when told its length), so it was read as the next request.
 */
function unframedBodyHint(error: NodeJS.ErrnoException & { rawPacket?: Buffer; bytesParsed?: number }): string {
  // rawPacket is the whole chunk read; the parser stopped bytesParsed bytes into it.
  const first = error.rawPacket?.subarray(error.bytesParsed ?? 0).toString('latin1').trimStart()[0];
  return error.code === 'HPE_INVALID_METHOD' && (first === '{' || first === '[')
    ? '; this looks like a JSON body sent without Content-Length: a body needs Content-Length (or chunked encoding)'
    : '';
}

/**
 * `firstBytesMs`: a connection that sends nothing within it is closed. Neither server's timeouts start before the
 * connection is handed to it, so without this an idle connection would be held for good.
 */
function routeBySniffing(socket: Socket, h1: ReturnType<typeof createHttpServer>, h2: Http2Server, firstBytesMs: number | undefined): void {
  const silent = () => socket.destroy();
  if (firstBytesMs) socket.setTimeout(firstBytesMs, silent);
  socket.once('readable', () => {
    if (firstBytesMs) {
      socket.setTimeout(0);
      socket.off('timeout', silent);
    }
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

