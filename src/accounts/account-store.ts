import type { AccountRecord, KeyRecord, SessionRecord } from './records.ts';

export interface LoadedAccounts {
  accounts: AccountRecord[];
  keys: KeyRecord[];
  sessions: SessionRecord[];
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
  /** A new account with its first key (the bootstrap admin). */
  putAccountWithKey(account: AccountRecord, key: KeyRecord): Promise<void>;
  putKey(record: KeyRecord): Promise<void>;
  /** Last-use bookkeeping: a crash may lose a few seconds of it. */
  putKeysLazily(records: readonly KeyRecord[]): Promise<void>;
  putSession(record: SessionRecord): Promise<void>;
  deleteSession(sessionId: string): Promise<void>;
  /** Expired sessions: they are already refused, so removing them need not be durable. */
  deleteSessionsLazily(sessionIds: readonly string[]): Promise<void>;
}
