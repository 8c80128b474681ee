export type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

export interface RateLimitOptions {
  /** Sustained requests per second per credential; 0 turns limiting off. */
  ratePerSecond: number;
  /** Requests allowed at once after a quiet spell (default twice the rate). */
  burst?: number;
  /** Most credentials tracked at once (default 100,000). */
  maxEntries?: number;
  now?: () => number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

const ALLOWED: RateDecision = Object.freeze({ ok: true });

/**
 * A token bucket per credential. A bucket that has had time to refill completely is the same as no bucket,
 * so idle ones are dropped: memory follows the number of credentials active in the last few seconds.
 */
export class RateLimiter {
  private readonly rate: number;
  private readonly burst: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  private readonly buckets = new Map<string, Bucket>();
  /** How long an untouched bucket takes to fill: after that it can be forgotten. */
  private readonly refillMs: number;
  private nextSweepAt = 0;

  constructor(options: RateLimitOptions) {
    if (!(options.ratePerSecond >= 0) || !Number.isFinite(options.ratePerSecond)) {
      throw new RangeError(`rate limit must be a number ≥ 0 (requests per second), got ${options.ratePerSecond}`);
    }
    this.rate = options.ratePerSecond;
    this.burst = Math.max(1, options.burst ?? 2 * this.rate);
    this.maxEntries = options.maxEntries ?? 100_000;
    this.now = options.now ?? Date.now;
    this.refillMs = this.rate > 0 ? (this.burst / this.rate) * 1000 : 0;
  }

  get enabled(): boolean {
    return this.rate > 0;
  }

  /** Buckets held right now (for metrics and tests). */
  get size(): number {
    return this.buckets.size;
  }

  take(credentialId: string): RateDecision {
    if (this.rate === 0) return ALLOWED;
    const now = this.now();
    let bucket = this.buckets.get(credentialId);
    if (bucket === undefined) {
      if (now >= this.nextSweepAt || this.buckets.size >= this.maxEntries) this.sweep(now);
      bucket = { tokens: this.burst, updatedAt: now };
      this.buckets.set(credentialId, bucket);
    } else if (now > bucket.updatedAt) {
      bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.updatedAt) * this.rate) / 1000);
      bucket.updatedAt = now;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return ALLOWED;
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.rate)) };
  }

  private sweep(now: number): void {
    this.nextSweepAt = now + Math.max(1000, this.refillMs);
    for (const [id, bucket] of this.buckets) {
      if (now - bucket.updatedAt >= this.refillMs) this.buckets.delete(id);
    }
    // Still full of busy credentials: the oldest go, which only ever errs towards letting a request through.
    for (const id of this.buckets.keys()) {
      if (this.buckets.size < this.maxEntries) break;
      this.buckets.delete(id);
    }
  }
}
