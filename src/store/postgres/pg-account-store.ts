import type pg from 'pg';
import { noSuchAccount, type AccountChanges, type AccountStore, type LoadedAccounts, type Lockout } from '../../accounts/account-store.ts';
import type { AccountRecord, KeyRecord, SessionRecord } from '../../accounts/records.ts';
import { inTransaction } from './transaction.ts';

const UPSERT_ACCOUNT = 'INSERT INTO account (username, record) VALUES ($1, $2) ON CONFLICT (username) DO UPDATE SET record = EXCLUDED.record';
/**
 * A key as one node holds it; a later last use another node wrote meanwhile stays (nodes learn of last uses only
 * when they load every key, so a revocation on one node would otherwise put back an older one).
 */
const UPSERT_KEY = `
  INSERT INTO api_key (key_id, record) VALUES ($1, $2) ON CONFLICT (key_id) DO UPDATE SET record = CASE
    WHEN coalesce(api_key.record->>'last_used_at', '') > coalesce(EXCLUDED.record->>'last_used_at', '')
    THEN EXCLUDED.record || jsonb_build_object('last_used_at', api_key.record->'last_used_at', 'last_used_from', api_key.record->'last_used_from')
    ELSE EXCLUDED.record
  END`;
/** The clock's bump and the note of what the change touched, in one statement. */
const BUMP_AND_NOTE = `
  WITH bumped AS (UPDATE tms_account_clock SET stamp = stamp + 1 RETURNING stamp)
  INSERT INTO account_change_log (stamp, kind, subject) SELECT bumped.stamp, touched.kind, touched.subject
  FROM bumped, unnest($1::text[], $2::text[]) AS touched (kind, subject)
  RETURNING stamp`;
/** The changes `account_change_log` keeps; a node further behind loads everything. */
const KEPT_CHANGES = 10_000n;
/** The log is pruned at every this many changes. */
const PRUNE_EVERY = 100n;

/** SQLSTATE foreign_key_violation: a key or session of an account another node has removed. */
const NO_SUCH_ACCOUNT = '23503';

/** A key or session written for an account: refused, as not found, when no such account exists (any longer). */
async function forAccount(account: string, write: Promise<void>): Promise<void> {
  try {
    await write;
  } catch (error) {
    if ((error as { code?: string }).code === NO_SUCH_ACCOUNT) throw noSuchAccount(account);
    throw error;
  }
}

function splitStamp(stamp: string): [epoch: string, count: bigint] {
  const slash = stamp.lastIndexOf('/');
  return [stamp.slice(0, slash), BigInt(stamp.slice(slash + 1))];
}

/** What an account change touched: an account (by name), a key or session (by id), or the lockouts. */
type Touched = { kind: 'account' | 'key' | 'session'; subject: string } | { kind: 'lockout'; subject: '' };
const LOCKOUTS: Touched = { kind: 'lockout', subject: '' };

/**
 * Accounts, keys and sessions as one row each, the record itself as jsonb. Every change a caller is told of
 * bumps `tms_account_clock` in its transaction, the stamp every node compares before it trusts its memory, and
 * notes under that stamp in `account_change_log` what it touched, so that a node behind loads only that.
 */
export class PgAccountStore implements AccountStore {
  constructor(private readonly pool: pg.Pool) {}

  async loadAll(): Promise<LoadedAccounts> {
    const [accounts, keys, sessions, lockouts] = await Promise.all([
      this.pool.query<{ record: AccountRecord }>('SELECT record FROM account'),
      this.pool.query<{ record: KeyRecord }>('SELECT record FROM api_key'),
      this.pool.query<{ record: SessionRecord }>('SELECT record FROM login_session'),
      this.lockoutsInForce(),
    ]);
    return {
      accounts: accounts.rows.map((row) => row.record),
      keys: keys.rows.map((row) => row.record),
      sessions: sessions.rows.map((row) => row.record),
      ...(lockouts.length > 0 && { lockouts }),
    };
  }

  /**
   * `<epoch>.<table oid>/<count>`: the epoch is made with the database and the oid with the clock's table, so neither a
   * database made again nor one restored from a dump (which makes its tables again) continues a count a node loaded at.
   */
  async stamp(): Promise<string> {
    const { rows } = await this.pool.query<{ stamp: string }>(
      "SELECT epoch || '.' || 'tms_account_clock'::regclass::oid::text || '/' || stamp::text AS stamp FROM tms_account_clock",
    );
    return rows[0]!.stamp;
  }

  async changesSince(from: string, to: string): Promise<AccountChanges | undefined> {
    const [fromEpoch, fromCount] = splitStamp(from);
    const [toEpoch, toCount] = splitStamp(to);
    const changes = toCount - fromCount;
    // Another database, the stamp gone back (a store restored into the database), or a log that no longer reaches back that far.
    if (fromEpoch !== toEpoch || changes <= 0n || changes > KEPT_CHANGES) return undefined;
    const { rows } = await this.pool.query<Touched & { stamp: string }>('SELECT stamp, kind, subject FROM account_change_log WHERE stamp > $1 AND stamp <= $2', [
      String(fromCount),
      String(toCount),
    ]);
    // Every stamp in the range has its note, unless the log was pruned or a change was made without one.
    if (BigInt(new Set(rows.map((row) => row.stamp)).size) !== changes) return undefined;
    if (rows.some((row) => row.kind === 'account')) return undefined;
    const touched = (kind: Touched['kind']) => [...new Set(rows.filter((row) => row.kind === kind).map((row) => row.subject))];
    const keyIds = touched('key');
    const sessionIds = touched('session');
    const [keys, sessions, lockouts] = await Promise.all([
      keyIds.length === 0 ? [] : this.pool.query<{ record: KeyRecord }>('SELECT record FROM api_key WHERE key_id = ANY($1)', [keyIds]).then((r) => r.rows.map((row) => row.record)),
      sessionIds.length === 0
        ? []
        : this.pool.query<{ record: SessionRecord }>('SELECT record FROM login_session WHERE session_id = ANY($1)', [sessionIds]).then((r) => r.rows.map((row) => row.record)),
      touched('lockout').length === 0 ? undefined : this.lockoutsInForce(),
    ]);
    const foundKeys = new Set(keys.map((key) => key.key_id));
    const foundSessions = new Set(sessions.map((session) => session.session_id));
    return {
      keys,
      sessions,
      removedKeys: keyIds.filter((id) => !foundKeys.has(id)),
      removedSessions: sessionIds.filter((id) => !foundSessions.has(id)),
      ...(lockouts && { lockouts }),
    };
  }

  async lastUses(): Promise<Map<string, { last_used_at: string; last_used_from: string | null }>> {
    const { rows } = await this.pool.query<{ key_id: string; last_used_at: string; last_used_from: string | null }>(
      "SELECT key_id, record->>'last_used_at' AS last_used_at, record->>'last_used_from' AS last_used_from FROM api_key WHERE record->>'last_used_at' IS NOT NULL",
    );
    return new Map(rows.map(({ key_id, ...use }) => [key_id, use]));
  }

  private async lockoutsInForce(): Promise<Lockout[]> {
    const { rows } = await this.pool.query<{ kind: Lockout['kind']; subject: string; until: Date }>('SELECT kind, subject, until FROM login_lockout WHERE until > now()');
    return rows.map((row) => ({ kind: row.kind, subject: row.subject, until: row.until.getTime() }));
  }

  /** A change that every node must see: its statements, the clock's bump and the note of what it touched, in one transaction. */
  private change(touched: readonly [Touched], work: (client: pg.PoolClient) => Promise<unknown>): Promise<void> {
    return inTransaction(this.pool, async (client) => {
      await work(client);
      const { rows } = await client.query<{ stamp: string }>(BUMP_AND_NOTE, [touched.map((entry) => entry.kind), touched.map((entry) => entry.subject)]);
      const stamp = BigInt(rows[0]!.stamp);
      if (stamp % PRUNE_EVERY === 0n) await client.query('DELETE FROM account_change_log WHERE stamp <= $1', [stamp - KEPT_CHANGES]);
    });
  }

  putAccount(record: AccountRecord): Promise<void> {
    return this.change([{ kind: 'account', subject: record.username }], (client) => client.query(UPSERT_ACCOUNT, [record.username, record]));
  }

  removeAccount(username: string): Promise<void> {
    return this.change([{ kind: 'account', subject: username }], async (client) => {
      // Its keys and sessions go with it (foreign keys), also those another node wrote that this one has not seen.
      await client.query('DELETE FROM account WHERE username = $1', [username]);
    });
  }

  /** Nodes starting together on an empty database race here: the first insert wins, the others write nothing. */
  async addAccountWithKey(account: AccountRecord, key: KeyRecord): Promise<boolean> {
    let added = false;
    await this.change([{ kind: 'account', subject: account.username }], async (client) => {
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
    return forAccount(
      record.account,
      this.change([{ kind: 'key', subject: record.key_id }], (client) => client.query(UPSERT_KEY, [record.key_id, record])),
    );
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
    return forAccount(
      record.account,
      this.change([{ kind: 'session', subject: record.session_id }], (client) =>
        client.query('INSERT INTO login_session (session_id, record) VALUES ($1, $2) ON CONFLICT (session_id) DO UPDATE SET record = EXCLUDED.record', [
          record.session_id,
          record,
        ]),
      ),
    );
  }

  deleteSession(sessionId: string): Promise<void> {
    return this.change([{ kind: 'session', subject: sessionId }], (client) => client.query('DELETE FROM login_session WHERE session_id = $1', [sessionId]));
  }

  async deleteSessionsLazily(sessionIds: readonly string[]): Promise<void> {
    await this.pool.query('DELETE FROM login_session WHERE session_id = ANY($1)', [sessionIds]);
  }

  putLockout(lockout: Lockout): Promise<void> {
    return this.change([LOCKOUTS], async (client) => {
      await client.query('DELETE FROM login_lockout WHERE until < now()');
      await client.query(
        `INSERT INTO login_lockout (kind, subject, until) VALUES ($1, $2, to_timestamp($3 / 1000.0))
         ON CONFLICT (kind, subject) DO UPDATE SET until = GREATEST(login_lockout.until, EXCLUDED.until)`,
        [lockout.kind, lockout.subject, lockout.until],
      );
    });
  }
}
