import { ApiError } from '../domain/errors.ts';
import type { AccountRecord, KeyRecord, SessionRecord } from './records.ts';

/** What `putKey` and `putSession` refuse with when the record's account does not exist (any longer). */
export const noSuchAccount = (account: string): ApiError => new ApiError('not_found', `account "${account}" not found`);

export interface LoadedAccounts {
  accounts: AccountRecord[];
  keys: KeyRecord[];
  sessions: SessionRecord[];
  /** Login lockouts in force (shared stores only). */
  lockouts?: Lockout[];
}

/** A login lockout: of an account name or of a client address, until a time (epoch ms). */
export interface Lockout {
  kind: 'account' | 'client';
  subject: string;
  until: number;
}

/**
 * What changed between two stamps of a shared store, where no account did (keys and sessions are registered
 * against their accounts, so an account change means loading everything).
 */
export interface AccountChanges {
  /** Keys and sessions changed, as they stand now. */
  keys: KeyRecord[];
  sessions: SessionRecord[];
  /** Those changed that no longer exist. */
  removedKeys: string[];
  removedSessions: string[];
  /** Every lockout in force, when one changed. */
  lockouts?: Lockout[];
}

/**
 * Where accounts, API keys and login sessions are kept. Every call is atomic; a call that acknowledges a
 * change to a caller is durable before it resolves, and the `…Lazily` ones (bookkeeping) need not be.
 */
export interface AccountStore {
  /** Everything, once, at start: the request path then never reads the store. */
  loadAll(): Promise<LoadedAccounts>;
  putAccount(record: AccountRecord): Promise<void>;
  /** An account and what authenticates as it go together. */
  removeAccount(username: string, keyIds: readonly string[], sessionIds: readonly string[]): Promise<void>;
  /** A new account with its first key (the bootstrap admin); false, writing nothing, if the account exists. */
  addAccountWithKey(account: AccountRecord, key: KeyRecord): Promise<boolean>;
  /** A key or session of an account that does not exist (another node removed it) is refused (`noSuchAccount`), writing nothing. */
  putKey(record: KeyRecord): Promise<void>;
  /**
   * Last-use bookkeeping: only the last-use fields, and only of keys that still exist (another node may have
   * revoked or removed one meanwhile); a crash may lose a few seconds of it.
   */
  putKeysLazily(records: readonly KeyRecord[]): Promise<void>;
  putSession(record: SessionRecord): Promise<void>;
  deleteSession(sessionId: string): Promise<void>;
  /** Expired sessions: they are already refused, so removing them need not be durable. */
  deleteSessionsLazily(sessionIds: readonly string[]): Promise<void>;
  /**
   * Where several nodes share the store: a stamp that changes with every change any node acknowledges (last
   * use aside), so that each node knows when to load the records again. Absent: only this process writes.
   */
  stamp?(): Promise<string>;
  /**
   * Shared stores: what the changes after stamp `from` up to `to` touched; undefined when an account changed, or
   * when the store no longer knows them all (then the caller loads everything).
   */
  changesSince?(from: string, to: string): Promise<AccountChanges | undefined>;
  /** Shared stores: the last use of each key used, as the nodes last wrote it. */
  lastUses?(): Promise<Map<string, { last_used_at: string; last_used_from: string | null }>>;
  /** Shared stores: a lockout every node applies. */
  putLockout?(lockout: Lockout): Promise<void>;
}
