import { Code, ConnectError } from '@connectrpc/connect';
import type { ConnectRouter, HandlerContext } from '@connectrpc/connect';
import { Health, HealthCheckResponse_ServingStatus as WireStatus } from '../../gen/grpc/health/v1/health_pb.ts';
import type { HealthCheckRequest } from '../../gen/grpc/health/v1/health_pb.ts';
import type { HealthState, ServingStatus } from './health-state.ts';

export { HealthState } from './health-state.ts';
export type { ServingStatus } from './health-state.ts';

const wireStatus: Record<ServingStatus, WireStatus> = {
  SERVING: WireStatus.SERVING,
  NOT_SERVING: WireStatus.NOT_SERVING,
};

/**
 * Serves `grpc.health.v1.Health` from `health`: Check (NOT_FOUND for an unknown service), List, and Watch
 * (the current status, SERVICE_UNKNOWN while the service is unknown, then every change until the client
 * goes away, or until the server stops serving: then UNAVAILABLE).
 */
export function registerHealth(router: ConnectRouter, health: HealthState): void {
  router.service(Health, {
    check(request) {
      const status = health.getStatus(request.service);
      if (status === undefined) {
        throw new ConnectError(`unknown service ${JSON.stringify(request.service)}`, Code.NotFound);
      }
      return { status: wireStatus[status] };
    },

    list() {
      const statuses: Record<string, { status: WireStatus }> = {};
      for (const [service, status] of health.statuses()) statuses[service] = { status: wireStatus[status] };
      return { statuses };
    },

    watch: (request: HealthCheckRequest, context: HandlerContext) => watchStatus(health, request.service, context.signal),
  });
}

async function* watchStatus(health: HealthState, service: string, signal: AbortSignal) {
  const changes: ServingStatus[] = [];
  let wake: (() => void) | undefined;
  const wakeUp = () => {
    wake?.();
    wake = undefined;
  };
  const unwatch = health.watch(service, (status) => {
    if (status !== undefined) changes.push(status);
    wakeUp();
  });
  signal.addEventListener('abort', wakeUp);
  try {
    const current = health.getStatus(service);
    yield { status: current === undefined ? WireStatus.SERVICE_UNKNOWN : wireStatus[current] };
    while (!signal.aborted) {
      const status = changes.shift();
      if (status !== undefined) {
        yield { status: wireStatus[status] };
        continue;
      }
      if (health.watchesEnded) throw new ConnectError('the server is shutting down; watch another instance', Code.Unavailable);
      await new Promise<void>((resolve) => (wake = resolve));
    }
    // A watch ends only when its call does (a deadline, the client gone, the server stopping): never as a success.
    throw ConnectError.from(signal.reason);
  } finally {
    unwatch();
    signal.removeEventListener('abort', wakeUp);
  }
}
