import { constants, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import { ApiError } from '../domain/errors.ts';
import { errorBody } from './errors.ts';
import { sendJson } from './http-io.ts';

/**
 * HTTP/2's counterpart of Node's whole-request timeout on HTTP/1.1, which Node's HTTP/2 server lacks: a request whose
 * body has not all arrived after `afterMs` is answered 408, as on HTTP/1.1 (or, with its answer begun, cancelled),
 * and its stream closed. Handlers that time their own body reads answer sooner; this holds for those that do not
 * (connect-node's).
 */
export function limitHttp2Body(req: Http2ServerRequest, res: Http2ServerResponse, limitMs: number, afterMs: number): void {
  if (req.complete) return;
  const timer = setTimeout(() => {
    if (req.complete || req.stream.closed) return;
    if (!res.headersSent) {
      const late = new ApiError('deadline_exceeded', `request: not received within ${limitMs} ms (TMS_REQUEST_TIMEOUT_MS)`);
      sendJson(res, 408, errorBody(late));
    }
    // The answer already written is sent before the stream is reset.
    req.stream.close(res.writableEnded ? constants.NGHTTP2_NO_ERROR : constants.NGHTTP2_CANCEL);
  }, afterMs);
  const clear = (): void => clearTimeout(timer);
  req.once('end', clear);
  res.once('close', clear);
}
