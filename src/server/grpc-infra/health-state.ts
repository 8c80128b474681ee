/** What the gRPC health service reports for a service; the empty name stands for the whole server. */
export type ServingStatus = 'SERVING' | 'NOT_SERVING';

/** A status change, or undefined: watches have ended (the server is stopping). */
type StatusListener = (status: ServingStatus | undefined) => void;

/**
 * The serving status of the server and of each service, as the gRPC health service reports it. Starts with
 * the whole server ('') SERVING. Watchers hear about changes only (setting the same status again is silent).
 */
export class HealthState {
  readonly #statuses = new Map<string, ServingStatus>([['', 'SERVING']]);
  readonly #listeners = new Map<string, Set<StatusListener>>();
  #shutDown = false;
  #watchesEnded = false;

  setStatus(service: string, status: ServingStatus): void {
    if (this.#shutDown) return;
    this.#set(service, status);
  }

  /** undefined: the service is unknown. */
  getStatus(service: string): ServingStatus | undefined {
    return this.#statuses.get(service);
  }

  /** Every known service with its status, the whole server ('') included. */
  statuses(): ReadonlyMap<string, ServingStatus> {
    return new Map(this.#statuses);
  }

  /**
   * Marks everything NOT_SERVING and ignores later setStatus calls: the first step of a graceful shutdown,
   * so that load balancers and watchers stop sending traffic before the listener closes.
   */
  shutdown(): void {
    for (const service of this.#statuses.keys()) this.#set(service, 'NOT_SERVING');
    this.#shutDown = true;
  }

  /**
   * The server stops serving: every watch ends (they would otherwise hold a graceful shutdown for its whole grace,
   * since a watch never ends by itself), and later ones end after their first status.
   */
  endWatches(): void {
    this.#watchesEnded = true;
    for (const listeners of this.#listeners.values()) for (const listener of [...listeners]) listener(undefined);
  }

  get watchesEnded(): boolean {
    return this.#watchesEnded;
  }

  /**
   * Calls `listener` on each change of `service`'s status, and with undefined when watches end, until the returned
   * function is called.
   */
  watch(service: string, listener: StatusListener): () => void {
    let listeners = this.#listeners.get(service);
    if (!listeners) this.#listeners.set(service, (listeners = new Set()));
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.#listeners.get(service) === listeners) this.#listeners.delete(service);
    };
  }

  /** How many watchers are attached (all services together); lets tests and metrics see watches end. */
  get watcherCount(): number {
    let count = 0;
    for (const listeners of this.#listeners.values()) count += listeners.size;
    return count;
  }

  #set(service: string, status: ServingStatus): void {
    if (this.#statuses.get(service) === status) return;
    this.#statuses.set(service, status);
    for (const listener of [...(this.#listeners.get(service) ?? [])]) listener(status);
  }
}
