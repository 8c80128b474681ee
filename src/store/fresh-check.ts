/**
 * Runs a check so that every caller waits for one that began after it called, while callers that arrive
 * together share a run: a caller never settles for a run already under way, which could miss what changed
 * just before it asked.
 */
export class FreshCheck {
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(private readonly check: () => Promise<void>) {}

  run(): Promise<void> {
    if (!this.running) return this.start();
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.start();
      });
    return this.queued;
  }

  private start(): Promise<void> {
    const running = this.check().finally(() => {
      if (this.running === running) this.running = undefined;
    });
    this.running = running;
    return running;
  }
}
