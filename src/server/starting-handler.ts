import type { RequestHandler } from './one-port.ts';
import type { Readiness } from './readiness.ts';
import { ApiError } from '../domain/errors.ts';
import { sendError } from './http-io.ts';
import { requestIdOf } from './request-state.ts';
import { answerHealth, answerReadiness } from './plain/plain-routes.ts';

/**
 * What the port answers while the node starts (the store opening or recovering, the catalogue loading):
 * liveness and readiness as always, and 503 `unavailable` with the reason for everything else.
 */
export function startingHandler(readiness: Readiness): RequestHandler {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') return answerHealth(res);
    if (path === '/readyz') return answerReadiness(res, readiness);
    sendError(res, new ApiError('unavailable', `tms is not ready (${readiness.reasons().join('; ')}); retry shortly`), {
      'retry-after': '1',
      'x-request-id': requestIdOf(req),
    });
  };
}
