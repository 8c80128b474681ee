import { ApiError, fieldViolation, invalidArgument } from '../domain/errors.ts';
import { FreshCheck } from '../store/fresh-check.ts';
import { WriterQueues } from '../store/writer-queues.ts';
import { noSuchAccount, type AccountChanges, type AccountStore, type LoadedAccounts, type Lockout } from './account-store.ts';
import { LoginThrottle } from './login-throttle.ts';
import type { ThrottleOptions } from './login-throttle.ts';
import { DEFAULT_SCRYPT_COST, PasswordHashingBusyError, hashPassword, verifyPassword } from './password-hash.ts';
import type { ScryptCost } from './password-hash.ts';
import { SCOPES, hasScope, sortScopes } from './principal.ts';
import type { Principal, Scope } from './principal.ts';
import { accountView, keyView } from './records.ts';
import type { AccountRecord, AccountView, KeyRecord, KeyView, SessionRecord } from './records.ts';
import { credentialIdOf, derivedKeyId, hashToken, newCredentialId, newPassword, newToken, sameHash } from './tokens.ts';
import { unpooled } from '../memory/unpooled.ts';
import {
  MAX_PASSWORD_LENGTH,
  checkKeyName,
  checkPassword,
  normalizeUsername,
  parseExpiry,
  parseScopes,
} from './validation.ts';

export interface AccessOptions {
  /** The clock, in epoch milliseconds (tests inject one). */
  now?: () => number;
  /** Lifetime of a login session (default 1 hour). */
  sessionTtlMs?: number;
  /** Lockout after failed logins. */
  throttle?: ThrottleOptions;
  /** How often last-use times reach the disk (default 5 s). */
  flushIntervalMs?: number;
  /** Password hashing cost for new hashes (default DEFAULT_SCRYPT_COST; tests lower it). */
  scrypt?: ScryptCost;
  /** Where background write failures go (default: a process warning). */
  onError?: (error: unknown) => void;
  /**
   * How many records outside the account store (timelines) a username still owns. Ownership is by name, so a new
   * account may not take the name of a deleted one whose timelines remain: it would inherit them.
   */
  ownedByName?: (username: string) => Promise<number>;
}

export interface LoginResult {
  token: string;
  expires_at: string;
  account: string;
  scopes: Scope[];
}

export interface NewAccount {
  username: unknown;
  /** Omitted: a random password is generated and returned once. */
  password?: unknown;
  scopes: unknown;
}

export interface NewKey {
  /** Whose key (default: the caller's own account; another account needs admin). */
  account?: unknown;
  name: unknown;
  scopes: unknown;
  /** ISO 8601 timestamp in the future, or empty for a key that does not expire. */
  expires_at?: unknown;
}

/** The one time a key's secret is seen. */
export type CreatedKey = KeyView & { key: string };

/** A TMS_ADMIN_KEY the store cannot take, for a reason the operator can fix (the message says how). */
export class AdminKeyRefusal extends Error {}

export type AdminBootstrap =
  | { created: true; username: string; password: string; key_id: string; key: string }
  | { created: false; notice?: string };

const MAKE_ADMIN = 'make one with: tms users create admin --scopes read,write,admin';
const NO_ADMIN = `no account has the admin scope, so none can manage the others; ${MAKE_ADMIN}`;
const MISSING_HEADER = 'missing Authorization: Bearer <API_KEY> header';
const INVALID_CREDENTIALS = 'invalid or expired credentials';
const INVALID_LOGIN = 'invalid username or password';
const ADMIN_USERNAME = 'admin';
const BOOTSTRAP = '(bootstrap)';
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;
const SESSION_SWEEP_MS = 60_000;
const VERIFIED_LIMIT = 10_000;

/** An API key or session as the request path sees it: everything needed to answer without I/O. */
interface Credential {
  hash: Buffer;
  /** Infinity when it never expires. */
  expiresAt: number;
  revoked: boolean;
  principal: Principal;
  /** Keys only: the stored record, and its last use not yet written. */
  key?: KeyRecord;
  lastUsedAt?: number;
  lastUsedFrom?: string;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * Keys an account may hold at once: each is held in memory, and each has a rate limit of its own, so an account
 * with keys without number could have memory and requests without bound.
 */
export const MAX_ACTIVE_KEYS = 100;

/**
 * Accounts, API keys and login sessions. Everything that authenticates lives in memory (loaded at open),
 * so `authenticate` is a Map lookup (and a SHA-256 the first time a header value is seen); changes are
 * written through to the store. Where other nodes share the store, every request first compares the
 * store's stamp with the one memory was loaded at, and loads what changed when they differ (the records a
 * change touched; all of them after an account change, or after a write of its own failed): a login, logout,
 * revocation or lockout on any node counts on every node from its next request.
 */
export class AccessControl {
  private readonly accounts = new Map<string, AccountRecord>();
  private readonly credentials = new Map<string, Credential>();
  /**
   * Authorization header values already matched to a credential, so a repeated one skips the SHA-256.
   * Only valid values are kept (bounded), so guessing cannot grow it.
   */
  private readonly verified = new Map<string, Credential>();
  private readonly dirtyKeys = new Set<string>();
  private readonly throttle: LoginThrottle;
  private readonly now: () => number;
  private readonly sessionTtlMs: number;
  private readonly cost: ScryptCost;
  private readonly onError: (error: unknown) => void;
  private readonly ownedByName: AccessOptions['ownedByName'];
  private readonly timer: NodeJS.Timeout;
  /** Every write goes through one queue, so that records reach the disk in the order they changed. */
  private readonly writes = new WriterQueues();
  private unknownUserHash: Promise<string> | undefined;
  private nextSessionSweep = 0;
  private closed = false;
  /** Shared stores: the check that keeps memory current, and the stamp memory was loaded at. */
  private readonly fresh: FreshCheck | undefined;
  private loadedStamp: string | undefined;
  /**
   * Writes that failed, and how many of them the last full load came after: a failed write may have changed
   * memory (a revocation, a logout, a removal) and not the store, or the store after all.
   */
  private failedWrites = 0;
  private failedWritesLoaded = 0;
  private lockoutWrite: Promise<void> = Promise.resolve();

  private constructor(private readonly store: AccountStore, options: AccessOptions) {
    this.now = options.now ?? Date.now;
    this.sessionTtlMs = options.sessionTtlMs ?? 60 * 60_000;
    this.cost = options.scrypt ?? DEFAULT_SCRYPT_COST;
    this.throttle = new LoginThrottle({ ...options.throttle, onLock: (lockout) => this.shareLockout(lockout) }, this.now);
    if (store.stamp) this.fresh = new FreshCheck(() => this.reloadIfChanged());
    this.onError = options.onError ?? ((error) => process.emitWarning(`account store: ${String(error)}`));
    this.ownedByName = options.ownedByName;
    this.timer = setInterval(() => void this.flush().catch(this.onError), options.flushIntervalMs ?? 5_000);
    this.timer.unref();
  }

  static async open(store: AccountStore, options: AccessOptions = {}): Promise<AccessControl> {
    const access = new AccessControl(store, options);
    // Read before the records: a change made in between is loaded again at the next check.
    access.loadedStamp = await store.stamp?.();
    access.load(await store.loadAll());
    return access;
  }

  private load(loaded: LoadedAccounts): void {
    const previous = new Map(this.credentials);
    this.accounts.clear();
    this.credentials.clear();
    for (const account of loaded.accounts) this.accounts.set(account.username, account);
    for (const key of loaded.keys) this.registerLoadedKey(key, previous.get(key.key_id));
    for (const session of loaded.sessions) this.registerSession(session);
    for (const lockout of loaded.lockouts ?? []) this.throttle.applyLock(lockout);
  }

  /** Another node's changes to keys, sessions and lockouts, into what memory holds. */
  private apply(changes: AccountChanges): void {
    for (const id of [...changes.removedKeys, ...changes.removedSessions]) {
      this.credentials.delete(id);
      this.dirtyKeys.delete(id);
    }
    for (const key of changes.keys) this.registerLoadedKey(key, this.credentials.get(key.key_id));
    for (const session of changes.sessions) this.registerSession(session);
    for (const lockout of changes.lockouts ?? []) this.throttle.applyLock(lockout);
  }

  /** A key as the store holds it; a last use seen here (in `before`) and not yet written stays. */
  private registerLoadedKey(key: KeyRecord, before: Credential | undefined): void {
    this.registerKey(key);
    const now = this.credentials.get(key.key_id)!;
    if (before?.lastUsedAt !== undefined && this.dirtyKeys.has(key.key_id)) {
      now.lastUsedAt = before.lastUsedAt;
      now.lastUsedFrom = before.lastUsedFrom;
    }
  }

  /** What changed since memory was loaded: only that, where the store can say; everything otherwise. */
  private async reloadIfChanged(): Promise<void> {
    const failed = this.failedWrites;
    const stamp = await this.store.stamp!();
    const repair = failed !== this.failedWritesLoaded;
    if (stamp === this.loadedStamp && !repair) return;
    const changes = this.loadedStamp === undefined || repair ? undefined : await this.store.changesSince?.(this.loadedStamp, stamp);
    if (changes) this.apply(changes);
    else {
      this.load(await this.store.loadAll());
      this.failedWritesLoaded = failed;
    }
    this.loadedStamp = stamp;
  }

  /** On a shared store, memory brought up to every node's acknowledged changes; at once otherwise. */
  private sync(): Promise<void> | undefined {
    return this.fresh?.run();
  }

  private shareLockout(lockout: Lockout): void {
    if (!this.store.putLockout) return;
    this.lockoutWrite = this.write(() => this.store.putLockout!(lockout)).catch(this.onError);
  }

  // ---------------------------------------------------------------- the request path

  /**
   * Who is calling, as every request asks: synchronous and free of I/O where this process alone writes the
   * store; on a shared store, after one stamp read (and a reload when it changed).
   */
  identify(authorization: string | undefined, client: string): Principal | Promise<Principal> {
    const fresh = this.sync();
    return fresh ? fresh.then(() => this.authenticate(authorization, client)) : this.authenticate(authorization, client);
  }

  /** Who is calling, by what memory holds now; throws `unauthenticated`. */
  authenticate(authorization: string | undefined, client: string): Principal {
    if (authorization === undefined || authorization.trim() === '') {
      throw new ApiError('unauthenticated', MISSING_HEADER);
    }
    const credential = this.recall(authorization) ?? this.verify(authorization);
    const now = this.now();
    if (credential === undefined || credential.revoked || credential.expiresAt <= now) {
      throw new ApiError('unauthenticated', INVALID_CREDENTIALS);
    }
    if (credential.key !== undefined) {
      credential.lastUsedAt = now;
      credential.lastUsedFrom = client;
      this.dirtyKeys.add(credential.key.key_id);
    }
    return credential.principal;
  }

  /**
   * A header value verified before, if its credential is still the registered one. Revocation and expiry
   * are still checked on every request by the caller; deletion or re-registration is caught here.
   */
  private recall(authorization: string): Credential | undefined {
    const credential = this.verified.get(authorization);
    if (credential === undefined) return undefined;
    if (this.credentials.get(credential.principal.credentialId) === credential) return credential;
    this.verified.delete(authorization);
    return undefined;
  }

  private verify(authorization: string): Credential | undefined {
    const token = BEARER.exec(authorization)?.[1];
    const credential = token === undefined ? undefined : this.find(token);
    if (credential === undefined) return undefined;
    if (this.verified.size >= VERIFIED_LIMIT) this.verified.clear();
    this.verified.set(authorization, credential);
    return credential;
  }

  /** The credential a token names, if its hash matches (compared in constant time). */
  private find(token: string): Credential | undefined {
    const hash = hashToken(token);
    const credential = this.credentials.get(credentialIdOf(token) ?? derivedKeyId(hash));
    return credential !== undefined && sameHash(credential.hash, hash) ? credential : undefined;
  }

  // ---------------------------------------------------------------- sessions

  /**
   * A session token for a username and password. Unknown user and wrong password get the same answer
   * (and take the same time); repeated failures lock the account name and the client out for a while.
   */
  async login(username: unknown, password: unknown, client: string): Promise<LoginResult> {
    if (typeof username !== 'string' || username.trim() === '') throw invalidArgument('username', 'is required');
    if (typeof password !== 'string' || password === '') throw invalidArgument('password', 'is required');
    await this.sync();
    const name = username.trim().toLowerCase().slice(0, 128);
    const attempt = this.throttle.begin(name, client);
    const account = this.accounts.get(name);
    let matches: boolean;
    try {
      const stored = account?.password_hash ?? (await this.hashForUnknownUsers());
      matches = password.length <= MAX_PASSWORD_LENGTH && (await verifyPassword(password, stored));
    } catch (error) {
      if (error instanceof PasswordHashingBusyError) {
        // Turned away before any password was checked: not a failed guess.
        attempt.withdrawn();
        throw error;
      }
      // Settle the attempt, or its pre-counted failure would hold the limit until the entry is evicted.
      attempt.failed();
      await this.lockoutWrite;
      throw error;
    }
    // The account may have been removed while the password was being checked.
    const current = this.accounts.get(name);
    if (!matches || account === undefined || current !== account) {
      attempt.failed();
      // A lock this failure began holds on every node before the caller hears of it.
      await this.lockoutWrite;
      throw new ApiError('unauthenticated', INVALID_LOGIN);
    }
    attempt.succeeded();

    const now = this.now();
    const sessionId = this.unusedId('session');
    const token = newToken(sessionId);
    const session: SessionRecord = {
      session_id: sessionId,
      account: name,
      created_at: iso(now),
      expires_at: iso(now + this.sessionTtlMs),
      client,
      token_sha256: hashToken(token).toString('hex'),
    };
    this.registerSession(session);
    try {
      await this.write(() => this.store.putSession(session));
    } catch (error) {
      this.credentials.delete(sessionId);
      // Another node removed the account meanwhile.
      if (error instanceof ApiError && error.code === 'not_found') throw new ApiError('unauthenticated', INVALID_LOGIN);
      throw error;
    }
    return { token, expires_at: session.expires_at, account: name, scopes: [...account.scopes] };
  }

  /** Ends a login session (the bearer token it was given). API keys are revoked instead. */
  async logout(token: string): Promise<void> {
    const bearer = BEARER.exec(token)?.[1] ?? token.trim();
    await this.sync();
    const credential = this.find(bearer);
    if (credential === undefined || credential.expiresAt <= this.now()) {
      throw new ApiError('unauthenticated', INVALID_CREDENTIALS);
    }
    if (credential.principal.kind !== 'session') {
      throw new ApiError('failed_precondition', 'logout ends a login session; API keys are revoked with DELETE /v1/keys/{key_id}');
    }
    const sessionId = credential.principal.credentialId;
    this.credentials.delete(sessionId);
    await this.write(() => this.store.deleteSession(sessionId));
  }

  // ---------------------------------------------------------------- accounts (admin)

  /** Returns the generated password when none was given: it is never shown again. */
  async createAccount(actor: Principal, input: NewAccount): Promise<{ account: AccountView; password?: string }> {
    requireAdmin(actor, 'creating accounts');
    const username = normalizeUsername(input.username);
    const scopes = parseScopes(input.scopes);
    const generated = input.password === undefined || input.password === null || input.password === '';
    const password = generated ? newPassword() : checkPassword(input.password);
    this.assertNewUsername(username);
    const leftOver = (await this.ownedByName?.(username)) ?? 0;
    if (leftOver > 0) {
      throw new ApiError(
        'failed_precondition',
        `username: "${username}" still owns ${leftOver} timeline${leftOver === 1 ? '' : 's'} of a deleted account of that name, which a new account would inherit; delete ${leftOver === 1 ? 'it' : 'them'} first (admins see ${leftOver === 1 ? 'it' : 'them'}), or choose another name`,
        [fieldViolation('username', 'owns timelines of a deleted account')],
      );
    }
    const passwordHash = await hashPassword(password, this.cost);
    this.assertNewUsername(username);
    const record: AccountRecord = {
      username,
      password_hash: passwordHash,
      scopes,
      created_at: iso(this.now()),
      created_by: actor.account,
    };
    this.accounts.set(username, record);
    try {
      await this.write(() => this.store.putAccount(record));
    } catch (error) {
      this.accounts.delete(username);
      throw error;
    }
    return generated ? { account: accountView(record), password } : { account: accountView(record) };
  }

  listAccounts(actor: Principal): AccountView[] {
    requireAdmin(actor, 'listing accounts');
    return [...this.accounts.values()].sort((a, b) => a.username.localeCompare(b.username)).map(accountView);
  }

  /** Removes an account with its keys and sessions, which stop working at once; answers its name as stored. */
  async deleteAccount(actor: Principal, username: unknown): Promise<string> {
    requireAdmin(actor, 'removing accounts');
    const name = normalizeUsername(username);
    const account = this.accounts.get(name);
    if (account === undefined) throw noSuchAccount(name);
    if (name === actor.account) throw new ApiError('failed_precondition', 'an account cannot remove itself');
    const admins = [...this.accounts.values()].filter((a) => a.scopes.includes('admin'));
    if (account.scopes.includes('admin') && admins.length === 1) {
      throw new ApiError('failed_precondition', `account "${name}" is the last admin; create another admin first`);
    }
    await this.removeAccount(name, account);
    return name;
  }

  /**
   * Takes back an account just created whose maker could not be told its password: the store is left as it was
   * before, even when that means no admin (the first one, made offline, failing).
   */
  async undoCreate(actor: Principal, username: string): Promise<void> {
    requireAdmin(actor, 'removing accounts');
    const account = this.accounts.get(username);
    if (account === undefined) throw noSuchAccount(username);
    await this.removeAccount(username, account);
  }

  private async removeAccount(name: string, account: AccountRecord): Promise<void> {
    const removed = [...this.credentials].filter(([, credential]) => credential.principal.account === name);
    const keyIds: string[] = [];
    const sessionIds: string[] = [];
    for (const [id, credential] of removed) {
      (credential.principal.kind === 'session' ? sessionIds : keyIds).push(id);
      this.credentials.delete(id);
    }
    this.accounts.delete(name);
    try {
      await this.write(() => this.store.removeAccount(name, keyIds, sessionIds));
    } catch (error) {
      // Not removed from the store, so not from memory either: the account and its credentials stand as they were.
      this.accounts.set(name, account);
      for (const [id, credential] of removed) this.credentials.set(id, credential);
      throw error;
    }
    for (const id of keyIds) this.dirtyKeys.delete(id);
  }

  // ---------------------------------------------------------------- API keys

  /** A new key with at most the caller's scopes (and its account's). The secret is returned only here. */
  async createKey(actor: Principal, input: NewKey): Promise<CreatedKey> {
    const target =
      input.account === undefined || input.account === null || input.account === ''
        ? actor.account
        : normalizeUsername(input.account, 'account');
    if (target !== actor.account) requireAdmin(actor, "creating keys for another account");
    if (actor.kind === 'key' && !hasScope(actor, 'admin')) {
      throw new ApiError('permission_denied', 'creating API keys takes a login session or an admin key: an API key without the "admin" scope cannot make another');
    }
    const account = this.accounts.get(target);
    if (account === undefined) throw noSuchAccount(target);
    const name = checkKeyName(input.name);
    const scopes = parseScopes(input.scopes);
    for (const scope of scopes) {
      if (!hasScope(actor, scope)) {
        const held = sortScopes(actor.scopes).join(', ');
        throw new ApiError('permission_denied', `scopes: "${scope}" exceeds this credential's scopes (${held})`);
      }
      if (!hasScope({ scopes: new Set(account.scopes) }, scope)) {
        throw invalidArgument('scopes', `account "${target}" does not hold the "${scope}" scope`);
      }
    }
    const now = this.now();
    const expiresAt = parseExpiry(input.expires_at, now);
    if (this.activeKeys(target, now) >= MAX_ACTIVE_KEYS) {
      throw new ApiError('resource_exhausted', `an account holds at most ${MAX_ACTIVE_KEYS} active API keys; revoke some first`);
    }
    const keyId = this.unusedId('key');
    const token = newToken(keyId);
    const record = this.keyRecord(keyId, token, { name, account: target, scopes, createdBy: actor.account, now });
    record.expires_at = expiresAt === null ? null : iso(expiresAt);
    this.registerKey(record);
    try {
      await this.write(() => this.store.putKey(record));
    } catch (error) {
      this.credentials.delete(keyId);
      throw error;
    }
    return { ...keyView(record), key: token };
  }

  /** The account's keys neither revoked nor expired. */
  private activeKeys(account: string, now: number): number {
    let count = 0;
    for (const { key, revoked, expiresAt } of this.credentials.values()) {
      if (key?.account === account && !revoked && expiresAt > now) count++;
    }
    return count;
  }

  /**
   * Without secrets. Non-admins see their own keys; admins everyone's (or one account's). Each with its latest
   * last use: this node's, or one another node sharing the store wrote later.
   */
  async listKeys(actor: Principal, filter: { account?: unknown } = {}): Promise<KeyView[]> {
    const account =
      filter.account === undefined || filter.account === null || filter.account === ''
        ? undefined
        : normalizeUsername(filter.account, 'account');
    const isAdmin = hasScope(actor, 'admin');
    if (account !== undefined && account !== actor.account) requireAdmin(actor, "listing another account's keys");
    if (account !== undefined && !this.accounts.has(account)) throw noSuchAccount(account);
    const wanted = account ?? (isAdmin ? undefined : actor.account);
    const written = await this.store.lastUses?.();
    const views: KeyView[] = [];
    for (const credential of this.credentials.values()) {
      const key = credential.key;
      if (key === undefined || (wanted !== undefined && key.account !== wanted)) continue;
      const view = keyView(this.withLastUse(credential, key));
      const elsewhere = written?.get(key.key_id);
      if (elsewhere && elsewhere.last_used_at > (view.last_used_at ?? '')) Object.assign(view, elsewhere);
      views.push(view);
    }
    return views.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.key_id.localeCompare(b.key_id));
  }

  /** Revoked keys are refused from the moment this is called. Another account's key is not_found. */
  async revokeKey(actor: Principal, keyId: unknown): Promise<KeyView> {
    if (typeof keyId !== 'string' || keyId === '') throw invalidArgument('key_id', 'is required');
    const credential = this.credentials.get(keyId);
    const key = credential?.key;
    if (credential === undefined || key === undefined || (key.account !== actor.account && !hasScope(actor, 'admin'))) {
      throw new ApiError('not_found', `key ${JSON.stringify(keyId)} not found`);
    }
    if (actor.kind === 'key' && actor.credentialId !== keyId && !hasScope(actor, 'admin')) {
      throw new ApiError('permission_denied', 'an API key without the "admin" scope revokes only itself; log in to revoke other keys');
    }
    if (!credential.revoked) {
      credential.revoked = true;
      key.revoked = true;
      key.revoked_at = iso(this.now());
      await this.write(() => this.store.putKey(this.withLastUse(credential, key)));
    }
    return keyView(key);
  }

  // ---------------------------------------------------------------- first start

  /**
   * On an empty store: an `admin` account with a random password and an API key (TMS_ADMIN_KEY when given),
   * returned once for the operator. Later starts return `{created: false}`, after making sure a given
   * TMS_ADMIN_KEY is accepted.
   */
  async ensureAdmin(options: { adminKey?: string } = {}): Promise<AdminBootstrap> {
    const { adminKey } = options;
    await this.sync();
    if (adminKey !== undefined) {
      if (adminKey.length < 16 || /\s/.test(adminKey)) throw new Error('TMS_ADMIN_KEY must be at least 16 characters, without spaces');
      const existing = this.find(adminKey);
      if (existing?.revoked) return { created: false, notice: 'TMS_ADMIN_KEY was revoked and stays revoked' };
      if (existing !== undefined) return { created: false };
      if (this.credentials.has(credentialIdOf(adminKey) ?? derivedKeyId(hashToken(adminKey)))) {
        throw new AdminKeyRefusal('TMS_ADMIN_KEY collides with the id of an existing key; choose another key');
      }
    }
    if (this.accounts.size > 0) {
      if (adminKey === undefined) {
        // Accounts made with `tms users create` before the first start: the admin account is theirs to make.
        const anyAdmin = [...this.accounts.values()].some((account) => account.scopes.includes('admin'));
        return anyAdmin ? { created: false } : { created: false, notice: NO_ADMIN };
      }
      const admin = this.accounts.get(ADMIN_USERNAME);
      if (admin === undefined || !admin.scopes.includes('admin')) {
        throw new AdminKeyRefusal(`TMS_ADMIN_KEY is new, and there is no "admin" account with the admin scope to give it to; ${MAKE_ADMIN}, or unset TMS_ADMIN_KEY`);
      }
      const record = this.adminKeyRecord(adminKey, true);
      this.registerKey(record);
      await this.write(() => this.store.putKey(record));
      return { created: false, notice: 'TMS_ADMIN_KEY was added to account "admin"' };
    }
    const password = newPassword();
    const account: AccountRecord = {
      username: ADMIN_USERNAME,
      password_hash: await hashPassword(password, this.cost),
      scopes: [...SCOPES],
      created_at: iso(this.now()),
      created_by: BOOTSTRAP,
    };
    if (this.accounts.size > 0) return { created: false };
    const key = adminKey ?? newToken(this.unusedId('key'));
    const record = this.adminKeyRecord(key, adminKey !== undefined);
    // Another node sharing the store may have made it first: then this one's is not written.
    if (!(await this.write(() => this.store.addAccountWithKey(account, record)))) {
      await this.sync();
      return { created: false };
    }
    this.accounts.set(ADMIN_USERNAME, account);
    this.registerKey(record);
    return { created: true, username: ADMIN_USERNAME, password, key_id: record.key_id, key };
  }

  private adminKeyRecord(key: string, fromEnvironment: boolean): KeyRecord {
    const keyId = credentialIdOf(key) ?? derivedKeyId(hashToken(key));
    const name = fromEnvironment ? 'TMS_ADMIN_KEY' : 'bootstrap admin key';
    return this.keyRecord(keyId, key, { name, account: ADMIN_USERNAME, scopes: [...SCOPES], createdBy: BOOTSTRAP, now: this.now() });
  }

  // ---------------------------------------------------------------- upkeep

  /** Writes pending last-use times and forgets expired sessions. Runs every few seconds and at close. */
  flush(): Promise<void> {
    return this.write(async () => {
      const keys: KeyRecord[] = [];
      for (const id of this.dirtyKeys) {
        const credential = this.credentials.get(id);
        if (credential?.key !== undefined) keys.push(this.withLastUse(credential, credential.key));
      }
      this.dirtyKeys.clear();
      if (keys.length > 0) await this.store.putKeysLazily(keys);
      const now = this.now();
      if (now < this.nextSessionSweep) return;
      this.nextSessionSweep = now + SESSION_SWEEP_MS;
      const expired: string[] = [];
      for (const [id, credential] of this.credentials) {
        if (credential.principal.kind === 'session' && credential.expiresAt <= now) expired.push(id);
      }
      for (const id of expired) this.credentials.delete(id);
      if (expired.length > 0) await this.store.deleteSessionsLazily(expired);
    });
  }

  /** Stops the timer and writes what is pending. The database itself belongs to the caller. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await this.flush();
  }

  // ---------------------------------------------------------------- internals

  private write<T>(operation: () => Promise<T>): Promise<T> {
    return this.writes.run('accounts', operation).catch((error: unknown) => {
      this.failedWrites += 1;
      throw error;
    });
  }

  private withLastUse(credential: Credential, key: KeyRecord): KeyRecord {
    if (credential.lastUsedAt !== undefined) {
      key.last_used_at = iso(credential.lastUsedAt);
      key.last_used_from = credential.lastUsedFrom ?? null;
    }
    return key;
  }

  private keyRecord(
    keyId: string,
    token: string,
    fields: { name: string; account: string; scopes: Scope[]; createdBy: string; now: number },
  ): KeyRecord {
    return {
      key_id: keyId,
      name: fields.name,
      account: fields.account,
      scopes: fields.scopes,
      created_at: iso(fields.now),
      created_by: fields.createdBy,
      expires_at: null,
      last_used_at: null,
      last_used_from: null,
      revoked: false,
      revoked_at: null,
      token_sha256: hashToken(token).toString('hex'),
    };
  }

  private registerKey(key: KeyRecord): void {
    const account = this.accounts.get(key.account);
    // A key never grants more than its account holds.
    const scopes = account === undefined ? [] : key.scopes.filter((s) => hasScope({ scopes: new Set(account.scopes) }, s));
    this.credentials.set(key.key_id, {
      hash: unpooled(Buffer.from(key.token_sha256, 'hex')),
      expiresAt: key.expires_at === null ? Number.POSITIVE_INFINITY : Date.parse(key.expires_at),
      revoked: key.revoked || account === undefined,
      principal: Object.freeze({ account: key.account, scopes: new Set(scopes), credentialId: key.key_id, kind: 'key' }),
      key,
    });
  }

  private registerSession(session: SessionRecord): void {
    const account = this.accounts.get(session.account);
    if (account === undefined) return;
    this.credentials.set(session.session_id, {
      hash: unpooled(Buffer.from(session.token_sha256, 'hex')),
      expiresAt: Date.parse(session.expires_at),
      revoked: false,
      principal: Object.freeze({
        account: session.account,
        scopes: new Set(account.scopes),
        credentialId: session.session_id,
        kind: 'session',
      }),
    });
  }

  private unusedId(kind: 'key' | 'session'): string {
    for (;;) {
      const id = newCredentialId(kind);
      if (!this.credentials.has(id)) return id;
    }
  }

  private assertNewUsername(username: string): void {
    if (this.accounts.has(username)) throw new ApiError('already_exists', `account "${username}" already exists`);
  }

  /** A real hash of a random password, so that logins for unknown users cost what real ones do; made again if it failed. */
  private hashForUnknownUsers(): Promise<string> {
    this.unknownUserHash ??= hashPassword(newPassword(), this.cost).catch((error: unknown) => {
      this.unknownUserHash = undefined;
      throw error;
    });
    return this.unknownUserHash;
  }
}

function requireAdmin(actor: Principal, what: string): void {
  if (!hasScope(actor, 'admin')) {
    const held = sortScopes(actor.scopes).join(', ') || 'no scopes';
    throw new ApiError('permission_denied', `${what} needs the "admin" scope; this credential has: ${held}`);
  }
}
