import type pg from 'pg';
import type { AccountStore, LoadedAccounts } from '../../accounts/account-store.ts';
import type { AccountRecord, KeyRecord, SessionRecord } from '../../accounts/records.ts';
import { inTransaction } from './transaction.ts';

const UPSERT_ACCOUNT = 'INSERT INTO account (username, record) VALUES ($1, $2) ON CONFLICT (username) DO UPDATE SET record = EXCLUDED.record';
const UPSERT_KEY = 'INSERT INTO api_key (key_id, record) VALUES ($1, $2) ON CONFLICT (key_id) DO UPDATE SET record = EXCLUDED.record';

/** Accounts, keys and sessions as one row each, the record itself as jsonb. */
export class PgAccountStore implements AccountStore {
  constructor(private readonly pool: pg.Pool) {}

  async loadAll(): Promise<LoadedAccounts> {
    const [accounts, keys, sessions] = await Promise.all([
      this.pool.query<{ record: AccountRecord }>('SELECT record FROM account'),
      this.pool.query<{ record: KeyRecord }>('SELECT record FROM api_key'),
      this.pool.query<{ record: SessionRecord }>('SELECT record FROM login_session'),
    ]);
    return {
      accounts: accounts.rows.map((row) => row.record),
      keys: keys.rows.map((row) => row.record),
      sessions: sessions.rows.map((row) => row.record),
    };
  }

  async putAccount(record: AccountRecord): Promise<void> {
    await this.pool.query(UPSERT_ACCOUNT, [record.username, record]);
  }

  removeAccount(username: string, keyIds: readonly string[], sessionIds: readonly string[]): Promise<void> {
    return inTransaction(this.pool, async (client) => {
      await client.query('DELETE FROM account WHERE username = $1', [username]);
      await client.query('DELETE FROM api_key WHERE key_id = ANY($1)', [keyIds]);
      await client.query('DELETE FROM login_session WHERE session_id = ANY($1)', [sessionIds]);
    });
  }

  putAccountWithKey(account: AccountRecord, key: KeyRecord): Promise<void> {
    return inTransaction(this.pool, async (client) => {
      await client.query(UPSERT_ACCOUNT, [account.username, account]);
      await client.query(UPSERT_KEY, [key.key_id, key]);
    });
  }

  async putKey(record: KeyRecord): Promise<void> {
    await this.pool.query(UPSERT_KEY, [record.key_id, record]);
  }

  async putKeysLazily(records: readonly KeyRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.pool.query(
      `INSERT INTO api_key (key_id, record) SELECT r->>'key_id', r FROM jsonb_array_elements($1::jsonb) AS r
       ON CONFLICT (key_id) DO UPDATE SET record = EXCLUDED.record`,
      [JSON.stringify(records)],
    );
  }

  async putSession(record: SessionRecord): Promise<void> {
    await this.pool.query(
      'INSERT INTO login_session (session_id, record) VALUES ($1, $2) ON CONFLICT (session_id) DO UPDATE SET record = EXCLUDED.record',
      [record.session_id, record],
    );
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.pool.query('DELETE FROM login_session WHERE session_id = $1', [sessionId]);
  }

  async deleteSessionsLazily(sessionIds: readonly string[]): Promise<void> {
    await this.pool.query('DELETE FROM login_session WHERE session_id = ANY($1)', [sessionIds]);
  }
}
