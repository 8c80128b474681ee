import type { AbstractLevel, AbstractSnapshot, AbstractSublevel } from 'abstract-level';
import type { AccountRecord, KeyRecord, SessionRecord } from '../../accounts/records.ts';
import { noSuchAccount, type AccountStore, type LoadedAccounts } from '../../accounts/account-store.ts';

/** The app's root LevelDB (any key/value encoding). */
export interface RootDb {
  sublevel(name: string, options: { valueEncoding: 'json' }): unknown;
}

type Stored = AccountRecord | KeyRecord | SessionRecord | { version: number };
type Format = string | Buffer | Uint8Array;
type Sublevel = AbstractSublevel<AbstractLevel<Format, unknown, unknown>, Format, string, Stored>;

export const SUBLEVEL_NAME = 'a';
const SCHEMA_VERSION = 1;
// Writes that acknowledge a change to the caller reach the disk before the answer does.
// (`sync` is classic-level's option; sublevels pass options through to it.)
const DURABLE = { sync: true } as Record<string, unknown>;

type Operation = { type: 'put'; key: string; value: Stored } | { type: 'del'; key: string };

const accountKey = (username: string): string => `u:${username}`;
const keyKey = (keyId: string): string => `k:${keyId}`;
const sessionKey = (sessionId: string): string => `s:${sessionId}`;

/**
 * Accounts in their own sublevel `a` of the app's LevelDB, so that nothing else can read or clobber them by
 * accident. Keys inside it: `u:<username>`, `k:<key_id>`, `s:<session_id>`, and `meta:schema`.
 */
export class LevelAccountStore implements AccountStore {
  private constructor(private readonly sub: Sublevel) {}

  static async open(db: RootDb): Promise<LevelAccountStore> {
    const sub = db.sublevel(SUBLEVEL_NAME, { valueEncoding: 'json' }) as Sublevel;
    await sub.open();
    const meta = await sub.get('meta:schema');
    if (meta === undefined) await sub.put('meta:schema', { version: SCHEMA_VERSION }, DURABLE);
    else if (!('version' in meta) || meta.version > SCHEMA_VERSION) {
      throw new Error(`account store schema ${JSON.stringify(meta)} is newer than this build understands`);
    }
    return new LevelAccountStore(sub);
  }

  /** `snapshot`: read as the root database stood when it was taken (`tms backup`). */
  async loadAll(snapshot?: AbstractSnapshot): Promise<LoadedAccounts> {
    const loaded: LoadedAccounts = { accounts: [], keys: [], sessions: [] };
    for await (const [key, value] of this.sub.iterator(snapshot ? { snapshot } : {})) {
      if (key.startsWith('u:')) loaded.accounts.push(value as AccountRecord);
      else if (key.startsWith('k:')) loaded.keys.push(value as KeyRecord);
      else if (key.startsWith('s:')) loaded.sessions.push(value as SessionRecord);
    }
    return loaded;
  }

  putAccount(record: AccountRecord): Promise<void> {
    return this.sub.put(accountKey(record.username), record, DURABLE);
  }

  removeAccount(username: string, keyIds: readonly string[], sessionIds: readonly string[]): Promise<void> {
    const operations: Operation[] = [
      { type: 'del', key: accountKey(username) },
      ...keyIds.map((id): Operation => ({ type: 'del', key: keyKey(id) })),
      ...sessionIds.map((id): Operation => ({ type: 'del', key: sessionKey(id) })),
    ];
    return this.sub.batch(operations, DURABLE);
  }

  /** Only one process writes the folder, and its account writes are serialised: a read, then the batch. */
  async addAccountWithKey(account: AccountRecord, key: KeyRecord): Promise<boolean> {
    if ((await this.sub.get(accountKey(account.username))) !== undefined) return false;
    const operations: Operation[] = [
      { type: 'put', key: accountKey(account.username), value: account },
      { type: 'put', key: keyKey(key.key_id), value: key },
    ];
    await this.sub.batch(operations, DURABLE);
    return true;
  }

  async putKey(record: KeyRecord): Promise<void> {
    await this.accountExists(record.account);
    await this.sub.put(keyKey(record.key_id), record, DURABLE);
  }

  /** One process writes, its account writes serialised: the account read stays true until the write. */
  private async accountExists(username: string): Promise<void> {
    if ((await this.sub.get(accountKey(username))) === undefined) throw noSuchAccount(username);
  }

  /** Bookkeeping (last use): not worth an fsync; a crash loses a few seconds of it. */
  async putKeysLazily(records: readonly KeyRecord[]): Promise<void> {
    if (records.length === 0) return;
    const stored = (await this.sub.getMany(records.map((record) => keyKey(record.key_id)))) as (KeyRecord | undefined)[];
    const operations: Operation[] = [];
    records.forEach((record, i) => {
      const current = stored[i];
      if (current) operations.push({ type: 'put', key: keyKey(record.key_id), value: { ...current, last_used_at: record.last_used_at, last_used_from: record.last_used_from } });
    });
    await this.sub.batch(operations);
  }

  async putSession(record: SessionRecord): Promise<void> {
    await this.accountExists(record.account);
    await this.sub.put(sessionKey(record.session_id), record, DURABLE);
  }

  deleteSession(sessionId: string): Promise<void> {
    return this.sub.del(sessionKey(sessionId), DURABLE);
  }

  deleteSessionsLazily(sessionIds: readonly string[]): Promise<void> {
    return this.sub.batch(sessionIds.map((id): Operation => ({ type: 'del', key: sessionKey(id) })));
  }
}
