import type pg from 'pg';
import type { AccountStore, LoadedAccounts, Lockout } from '../../accounts/account-store.ts';
import type { AccountRecord, KeyRecord, SessionRecord } from '../../accounts/records.ts';
import { inTransaction } from './transaction.ts';

const UPSERT_ACCOUNT = 'INSERT INTO account (username, record) VALUES ($1, $2) ON CONFLICT (username) DO UPDATE SET record = EXCLUDED.record';
const UPSERT_KEY = 'INSERT INTO api_key (key_id, record) VALUES ($1, $2) ON CONFLICT (key_id) DO UPDATE SET record = EXCLUDED.record';
const BUMP = 'UPDATE tms_account_clock SET stamp = stamp + 1';

/**
 * Accounts, keys and sessions as one row each, the record itself as jsonb. Every change a caller is told of
 * bumps `tms_account_clock` in its transaction: the stamp every node compares before it trusts its memory.
 */
export class PgAccountStore implements AccountStore {
  constructor(private readonly pool: pg.Pool) {}

  async loadAll(): Promise<LoadedAccounts> {
    const [accounts, keys, sessions, lockouts] = await Promise.all([
      this.pool.query<{ record: AccountRecord }>('SELECT record FROM account'),
      this.pool.query<{ record: KeyRecord }>('SELECT record FROM api_key'),
      this.pool.query<{ record: SessionRecord }>('SELECT record FROM login_session'),
      this.pool.query<{ kind: Lockout['kind']; subject: string; until: Date }>('SELECT kind, subject, until FROM login_lockout WHERE until > now()'),
    ]);
    return {
      accounts: accounts.rows.map((row) => row.record),
      keys: keys.rows.map((row) => row.record),
      sessions: sessions.rows.map((row) => row.record),
      ...(lockouts.rows.length > 0 && { lockouts: lockouts.rows.map((row) => ({ kind: row.kind, subject: row.subject, until: row.until.getTime() })) }),
    };
  }

  async stamp(): Promise<string> {
    const { rows } = await this.pool.query<{ stamp: string }>('SELECT stamp FROM tms_account_clock');
    return rows[0]!.stamp;
  }

  /** A change that every node must see: its statements and the clock's bump in one transaction. */
  private change(work: (client: pg.PoolClient) => Promise<unknown>): Promise<void> {
    return inTransaction(this.pool, async (client) => {
      await work(client);
      await client.query(BUMP);
    });
  }

  putAccount(record: AccountRecord): Promise<void> {
    return this.change((client) => client.query(UPSERT_ACCOUNT, [record.username, record]));
  }

  removeAccount(username: string, keyIds: readonly string[], sessionIds: readonly string[]): Promise<void> {
    return this.change(async (client) => {
      await client.query('DELETE FROM account WHERE username = $1', [username]);
      // Also what another node created for the account and this one has not seen yet.
      await client.query(`DELETE FROM api_key WHERE key_id = ANY($1) OR record->>'account' = $2`, [keyIds, username]);
      await client.query(`DELETE FROM login_session WHERE session_id = ANY($1) OR record->>'account' = $2`, [sessionIds, username]);
    });
  }

  /** Nodes starting together on an empty database race here: the first insert wins, the others write nothing. */
  async addAccountWithKey(account: AccountRecord, key: KeyRecord): Promise<boolean> {
    let added = false;
    await this.change(async (client) => {
      const inserted = await client.query('INSERT INTO account (username, record) VALUES ($1, $2) ON CONFLICT (username) DO NOTHING', [
        account.username,
        account,
      ]);
      added = inserted.rowCount === 1;
      if (added) await client.query(UPSERT_KEY, [key.key_id, key]);
    });
    return added;
  }

  putKey(record: KeyRecord): Promise<void> {
    return this.change((client) => client.query(UPSERT_KEY, [record.key_id, record]));
  }

  async putKeysLazily(records: readonly KeyRecord[]): Promise<void> {
    if (records.length === 0) return;
    const uses = records.map((r) => ({ key_id: r.key_id, last_used_at: r.last_used_at, last_used_from: r.last_used_from }));
    await this.pool.query(
      `UPDATE api_key SET record = api_key.record || jsonb_build_object('last_used_at', u->'last_used_at', 'last_used_from', u->'last_used_from')
       FROM jsonb_array_elements($1::jsonb) AS u WHERE api_key.key_id = u->>'key_id'`,
      [JSON.stringify(uses)],
    );
  }

  putSession(record: SessionRecord): Promise<void> {
    return this.change((client) =>
      client.query('INSERT INTO login_session (session_id, record) VALUES ($1, $2) ON CONFLICT (session_id) DO UPDATE SET record = EXCLUDED.record', [
        record.session_id,
        record,
      ]),
    );
  }

  deleteSession(sessionId: string): Promise<void> {
    return this.change((client) => client.query('DELETE FROM login_session WHERE session_id = $1', [sessionId]));
  }

  async deleteSessionsLazily(sessionIds: readonly string[]): Promise<void> {
    await this.pool.query('DELETE FROM login_session WHERE session_id = ANY($1)', [sessionIds]);
  }

  putLockout(lockout: Lockout): Promise<void> {
    return this.change(async (client) => {
      await client.query('DELETE FROM login_lockout WHERE until < now()');
      await client.query(
        `INSERT INTO login_lockout (kind, subject, until) VALUES ($1, $2, to_timestamp($3 / 1000.0))
         ON CONFLICT (kind, subject) DO UPDATE SET until = GREATEST(login_lockout.until, EXCLUDED.until)`,
        [lockout.kind, lockout.subject, lockout.until],
      );
    });
  }
}
