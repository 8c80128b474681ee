import { addressBlock } from './address-block.ts';
import { ApiError } from '../domain/errors.ts';
import type { Lockout } from './account-store.ts';

export interface ThrottleOptions {
  /** Failures in a row that lock one account (default 10). */
  accountLimit?: number;
  /** Failures in a row that lock one client address (default 20). */
  clientLimit?: number;
  /** First lock, in milliseconds (default 60 s); each further lock of the same subject doubles it. */
  lockMs?: number;
  /** Longest lock (default 15 min, or lockMs if that is longer). */
  maxLockMs?: number;
  /** Most subjects remembered per kind (default 10,000): memory stays bounded under a spray of names. */
  maxEntries?: number;
  /** Told of every lock as it begins (nodes sharing a store pass it on to the others). */
  onLock?: (lockout: Lockout) => void;
}

interface Subject {
  /** Failures since the last lock (for an account, since its last success); attempts still being checked count already. */
  failures: number;
  /** Locks so far: each doubles the next one's length. */
  locks: number;
  /** Attempts begun and not yet settled (counted in `failures` already). */
  pending: number;
  lockedUntil: number;
  lastSeen: number;
}

interface ClientSubject extends Subject {
  /** The same failures by account name: a success takes back only those of its own account. */
  byAccount: Map<string, number>;
}

/** A pending login attempt: settle it with `succeeded()` or `failed()`, or `withdrawn()` when no password was checked. */
export interface Attempt {
  succeeded(): void;
  failed(): void;
  withdrawn(): void;
}

/**
 * Lockout after repeated failed logins, per account name (existing or not, so a lock says nothing about
 * existence) and per client address (an IPv6 one by its /64: `addressBlock`). In memory: a restart forgets it,
 * which only gives back what a lock's expiry would.
 */
export class LoginThrottle {
  private readonly accountLimit: number;
  private readonly clientLimit: number;
  private readonly lockMs: number;
  private readonly maxLockMs: number;
  private readonly maxEntries: number;
  private readonly onLock: ((lockout: Lockout) => void) | undefined;
  private readonly accounts = new Map<string, Subject>();
  private readonly clients = new Map<string, ClientSubject>();

  constructor(options: ThrottleOptions, private readonly now: () => number) {
    this.accountLimit = options.accountLimit ?? 10;
    this.clientLimit = options.clientLimit ?? 20;
    this.lockMs = options.lockMs ?? 60_000;
    this.maxLockMs = options.maxLockMs ?? Math.max(15 * 60_000, this.lockMs);
    this.maxEntries = options.maxEntries ?? 10_000;
    this.onLock = options.onLock;
  }

  /**
   * Throws `resource_exhausted` with a retry-after figure while either subject is locked, or while attempts
   * still being checked already make up its limit.
   */
  begin(username: string, clientAddress: string): Attempt {
    const client = addressBlock(clientAddress);
    const now = this.now();
    const account = this.subject(this.accounts, username, now, newSubject);
    const source = this.subject(this.clients, client, now, (at) => ({ ...newSubject(at), byAccount: new Map() }));
    const waitMs = Math.max(this.waitMs(account, this.accountLimit, now), this.waitMs(source, this.clientLimit, now));
    if (waitMs > 0) throw lockedOut(waitMs);
    // Counted as a failure before the password is checked, so a burst of parallel guesses cannot outrun the limit.
    account.failures += 1;
    account.pending += 1;
    account.lastSeen = now;
    source.failures += 1;
    source.lastSeen = now;
    source.byAccount.set(username, (source.byAccount.get(username) ?? 0) + 1);
    let settled = false;
    return {
      succeeded: () => {
        if (settled) return;
        settled = true;
        account.pending -= 1;
        this.forgiveAccount(username, account);
        this.forgiveClient(client, username);
      },
      withdrawn: () => {
        if (settled) return;
        settled = true;
        account.pending -= 1;
        account.failures = Math.max(0, account.failures - 1);
        source.failures = Math.max(0, source.failures - 1);
        const own = (source.byAccount.get(username) ?? 1) - 1;
        if (own > 0) source.byAccount.set(username, own);
        else source.byAccount.delete(username);
      },
      failed: () => {
        if (settled) return;
        settled = true;
        account.pending -= 1;
        const at = this.now();
        if (this.lockIfFull(account, this.accountLimit, at)) this.onLock?.({ kind: 'account', subject: username, until: account.lockedUntil });
        if (this.lockIfFull(source, this.clientLimit, at)) {
          source.byAccount.clear();
          this.onLock?.({ kind: 'client', subject: client, until: source.lockedUntil });
        }
      },
    };
  }

  /** A lock that began elsewhere (on another node). */
  applyLock(lockout: Lockout): void {
    const now = this.now();
    const subject =
      lockout.kind === 'account'
        ? this.subject(this.accounts, lockout.subject, now, newSubject)
        : this.subject(this.clients, lockout.subject, now, (at) => ({ ...newSubject(at), byAccount: new Map() }));
    if (lockout.until > subject.lockedUntil) subject.lockedUntil = lockout.until;
  }

  private waitMs(subject: Subject, limit: number, now: number): number {
    if (subject.lockedUntil > now) return subject.lockedUntil - now;
    return subject.failures >= limit ? this.lockLength(subject.locks + 1) : 0;
  }

  /** True when the failures reached the limit and locked the subject (its count starts again from zero). */
  private lockIfFull(subject: Subject, limit: number, now: number): boolean {
    if (subject.failures < limit) return false;
    subject.failures = 0;
    subject.locks += 1;
    subject.lockedUntil = now + this.lockLength(subject.locks);
    return true;
  }

  private lockLength(lock: number): number {
    return Math.min(this.lockMs * 2 ** (lock - 1), this.maxLockMs);
  }

  /**
   * The right password clears the account's failures and locks, but not the attempts still being checked: each
   * of those counts already, and counts on as a failure if it fails.
   */
  private forgiveAccount(username: string, account: Subject): void {
    if (account.pending === 0) {
      if (this.accounts.get(username) === account) this.accounts.delete(username);
      return;
    }
    account.failures = account.pending;
    account.locks = 0;
  }

  /**
   * The right password proves who holds this one account, nothing more: the client keeps the failures it
   * had on other accounts, or one real account would let it guess at every other account without limit.
   */
  private forgiveClient(client: string, username: string): void {
    const source = this.clients.get(client);
    const own = source?.byAccount.get(username);
    if (source === undefined || own === undefined) return;
    source.failures -= own;
    source.byAccount.delete(username);
    if (source.failures === 0 && source.locks === 0) this.clients.delete(client);
  }

  private subject<S extends Subject>(map: Map<string, S>, name: string, now: number, create: (now: number) => S): S {
    let subject = map.get(name);
    if (!subject) {
      if (map.size >= this.maxEntries) this.evict(map, now, map === this.accounts ? this.accountLimit : this.clientLimit);
      subject = create(now);
      map.set(name, subject);
    }
    return subject;
  }

  /**
   * Forgets subjects that are not locked and have been quiet for a while; failing that, a tenth of the map, those
   * closest to nothing first: fewest failures and locks, then the longest quiet. An attacker who sprays names with
   * one failure each so cannot make the throttle forget an account it has nearly locked; it would have to give
   * a tenth of the map's names at least as many failures as that account has. Locked subjects go last.
   */
  private evict(map: Map<string, Subject>, now: number, limit: number): void {
    const quietMs = 2 * this.maxLockMs;
    for (const [name, subject] of map) {
      if (subject.lockedUntil <= now && now - subject.lastSeen > quietMs) map.delete(name);
    }
    if (map.size < this.maxEntries) return;
    const weight = (subject: Subject) => (subject.lockedUntil > now ? Infinity : subject.failures + subject.locks * limit);
    const leastFirst = [...map].sort(([, a], [, b]) => weight(a) - weight(b) || a.lastSeen - b.lastSeen);
    const room = Math.max(1, Math.ceil(this.maxEntries / 10));
    for (const [name] of leastFirst.slice(0, room)) map.delete(name);
  }
}

function newSubject(now: number): Subject {
  return { failures: 0, locks: 0, pending: 0, lockedUntil: 0, lastSeen: now };
}

function lockedOut(waitMs: number): ApiError {
  const seconds = Math.ceil(waitMs / 1000);
  return new ApiError('resource_exhausted', `too many failed logins; try again in ${seconds} seconds`, [
    { type: 'tms.v1.RetryInfo', debug: { retry_after_seconds: seconds } },
  ]);
}
