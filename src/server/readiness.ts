import type { HealthState } from './grpc-infra/health-state.ts';

/** A condition the service needs to take traffic: a reason it cannot, or undefined when it can. */
export type ReadinessCheck = () => string | undefined;

/**
 * Whether this node should get traffic, and if not, why: while it starts (opening or recovering the store,
 * loading the catalogue), when a dependency is down (the analysis pool), and from the first moment of a
 * shutdown. `/readyz` reads it on every call; the gRPC health service follows it (checked every second).
 */
export class Readiness {
  private draining = false;
  private readonly checks: ReadinessCheck[] = [];
  private timer: NodeJS.Timeout | undefined;

  /** `firstStage`: what a new node does first (`opening the store`). */
  constructor(
    private readonly health: HealthState,
    private readonly services: readonly string[],
    private stage: string | undefined,
  ) {
    this.sync();
  }

  /** What the node is doing on its way up (`opening the store`), or undefined once it is up. */
  starting(stage: string | undefined): void {
    this.stage = stage;
    this.sync();
  }

  addCheck(check: ReadinessCheck): void {
    this.checks.push(check);
  }

  /** The first step of a shutdown: never ready again. */
  drain(): void {
    this.draining = true;
    this.stop();
    this.health.shutdown();
  }

  /** Every reason not to send traffic here now; empty when ready. */
  reasons(): string[] {
    if (this.draining) return ['shutting down'];
    const reasons = this.stage === undefined ? [] : [`starting: ${this.stage}`];
    for (const check of this.checks) {
      const problem = check();
      if (problem !== undefined) reasons.push(problem);
    }
    return reasons;
  }

  /** Keeps the gRPC health statuses in step with the checks. */
  watch(intervalMs = 1_000): void {
    this.stop();
    this.timer = setInterval(() => this.sync(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private sync(): void {
    if (this.draining) return;
    const status = this.reasons().length === 0 ? 'SERVING' : 'NOT_SERVING';
    for (const service of ['', ...this.services]) this.health.setStatus(service, status);
  }
}
