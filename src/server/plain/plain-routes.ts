import type { PlainRoute } from '../http-handler.ts';
import type { AnyResponse } from '../one-port.ts';
import type { Metrics } from '../../observability/metrics.ts';
import type { Readiness } from '../readiness.ts';
import type { RequestState } from '../request-state.ts';
import { sendJson } from '../http-io.ts';

/** Liveness: the process answers. Whether it should get traffic is /readyz's question. */
export function answerHealth(res: AnyResponse): void {
  sendJson(res, 200, { status: 'SERVING' });
}

/** 200 when ready; 503 with every reason not to send traffic here (logged and counted as `unavailable`). */
export function answerReadiness(res: AnyResponse, readiness: Readiness, state?: RequestState): void {
  const reasons = readiness.reasons();
  if (reasons.length > 0 && state) state.code = 'unavailable';
  sendJson(res, reasons.length === 0 ? 200 : 503, reasons.length === 0 ? { status: 'SERVING' } : { status: 'NOT_SERVING', reasons });
}

/** Health (liveness), readiness with its reasons, metrics and the API description: unauthenticated. */
export function plainRoutes(readiness: Readiness, metrics: Metrics, openapi: () => object): Map<string, PlainRoute> {
  const health: PlainRoute = (_req, res) => answerHealth(res);
  const ready: PlainRoute = (_req, res, state) => answerReadiness(res, readiness, state);
  let openapiText: string | undefined;
  return new Map<string, PlainRoute>([
    ['/healthz', health],
    ['/readyz', ready],
    [
      '/metrics',
      async (_req, res) => {
        const text = await metrics.render();
        res.writeHead(200, { 'content-type': metrics.contentType });
        res.end(text);
      },
    ],
    ['/openapi.json', (_req, res) => sendJson(res, 200, (openapiText ??= JSON.stringify(openapi())))],
  ]);
}
