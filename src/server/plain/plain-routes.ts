import type { PlainRoute } from '../http-handler.ts';
import type { Metrics } from '../../observability/metrics.ts';
import { sendJson } from '../http-io.ts';

export interface Readiness {
  ready: boolean;
  draining: boolean;
}

/** Health, readiness and metrics: unauthenticated, for load balancers and Prometheus. */
export function plainRoutes(readiness: Readiness, metrics: Metrics, openapi: () => object): Map<string, PlainRoute> {
  const health: PlainRoute = (_req, res) => {
    const ok = readiness.ready && !readiness.draining;
    sendJson(res, ok ? 200 : 503, { status: ok ? 'SERVING' : 'NOT_SERVING' });
  };
  let openapiText: string | undefined;
  return new Map<string, PlainRoute>([
    ['/healthz', health],
    ['/readyz', health],
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
