import { ApiError } from '../domain/errors.ts';

export interface ThrottleOptions {
  /** Failures in a row that lock one account (default 10). */
  accountLimit?: number;
  /** Failures in a row that lock one client address (default 20). */
  clientLimit?: number;
  /** First lock, in milliseconds (default 60 s); each further lock of the same subject doubles it. */
  lockMs?: number;
  /** Longest lock (default 15 min). */
  maxLockMs?: number;
  /** Most subjects remembered per kind (default 10,000): memory stays bounded under a spray of names. */
  maxEntries?: number;
}

interface Subject {
  /** Attempts since the last success or lock; attempts still being verified count already. */
  failures: number;
  /** Locks so far: each doubles the next one's length. */
  locks: number;
  lockedUntil: number;
  lastSeen: number;
}

/** A pending login attempt: settle it with `succeeded()` or `failed()`. */
export interface Attempt {
  succeeded(): void;
  failed(): void;
}

/**
 * Lockout after repeated failed logins, per account name (existing or not, so a lock says nothing about
 * existence) and per client address. In memory: a restart forgets it, which only gives back what a
 * lock's expiry would.
 */
export class LoginThrottle {
  private readonly accountLimit: number;
  private readonly clientLimit: number;
  private readonly lockMs: number;
  private readonly maxLockMs: number;
  private readonly maxEntries: number;
  private readonly accounts = new Map<string, Subject>();
  private readonly clients = new Map<string, Subject>();

  constructor(options: ThrottleOptions, private readonly now: () => number) {
    this.accountLimit = options.accountLimit ?? 10;
    this.clientLimit = options.clientLimit ?? 20;
    this.lockMs = options.lockMs ?? 60_000;
    this.maxLockMs = options.maxLockMs ?? 15 * 60_000;
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  /** Throws `resource_exhausted` with a retry-after figure while either subject is locked. */
  begin(username: string, client: string): Attempt {
    const now = this.now();
    const account = this.subject(this.accounts, username, now);
    const source = this.subject(this.clients, client, now);
    const waitMs = Math.max(account.lockedUntil, source.lockedUntil) - now;
    if (waitMs > 0) throw lockedOut(waitMs);
    // Counted before the password is checked, so a burst of parallel guesses cannot outrun the limit.
    this.count(account, this.accountLimit, now);
    this.count(source, this.clientLimit, now);
    let settled = false;
    return {
      succeeded: () => {
        if (settled) return;
        settled = true;
        this.accounts.delete(username);
        this.clients.delete(client);
      },
      failed: () => {
        settled = true;
      },
    };
  }

  private count(subject: Subject, limit: number, now: number): void {
    subject.failures += 1;
    subject.lastSeen = now;
    if (subject.failures < limit) return;
    subject.failures = 0;
    subject.locks += 1;
    subject.lockedUntil = now + Math.min(this.lockMs * 2 ** (subject.locks - 1), this.maxLockMs);
  }

  private subject(map: Map<string, Subject>, name: string, now: number): Subject {
    let subject = map.get(name);
    if (!subject) {
      if (map.size >= this.maxEntries) this.evict(map, now);
      subject = { failures: 0, locks: 0, lockedUntil: 0, lastSeen: now };
      map.set(name, subject);
    }
    return subject;
  }

  /** Forget subjects that are not locked and have been quiet for a while; failing that, the oldest. */
  private evict(map: Map<string, Subject>, now: number): void {
    const quietMs = 2 * this.maxLockMs;
    for (const [name, subject] of map) {
      if (subject.lockedUntil <= now && now - subject.lastSeen > quietMs) map.delete(name);
    }
    for (const [name, subject] of map) {
      if (map.size < this.maxEntries) break;
      if (subject.lockedUntil <= now) map.delete(name);
    }
    for (const name of map.keys()) {
      if (map.size < this.maxEntries) break;
      map.delete(name);
    }
  }
}

function lockedOut(waitMs: number): ApiError {
  const seconds = Math.ceil(waitMs / 1000);
  return new ApiError('resource_exhausted', `too many failed logins; try again in ${seconds} seconds`, [
    { type: 'tms.v1.RetryInfo', debug: { retry_after_seconds: seconds } },
  ]);
}
