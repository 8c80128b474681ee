import type pg from 'pg';
import type { AccountRecord, KeyRecord, SessionRecord } from '../../accounts/records.ts';
import type { SavedRequestRecord } from '../../saved-requests/records.ts';
import type { StoreView } from '../storage.ts';
import { RangeReader } from './pg-key-value-space.ts';

const SAVED_PAGE = 500;

/**
 * Runs `work` on one REPEATABLE READ, read-only transaction: every table it reads (timeline entries, accounts,
 * keys, sessions, saved requests) shows the database as it stood at its first query, whatever other nodes
 * commit meanwhile. A backup may take minutes and wait on a slow reader, so this transaction alone may sit
 * idle for up to 10 minutes (the pool's usual limit is 30 s).
 */
export async function snapshotAll<T>(pool: pg.Pool, work: (view: StoreView) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query(`SET LOCAL idle_in_transaction_session_timeout = '600s'`);
    return await work({
      entries: () => new RangeReader(client, {}),
      countEntries: async () => Number((await client.query<{ count: string }>('SELECT count(*) FROM timeline_kv')).rows[0]!.count),
      async accounts() {
        const accounts = await client.query<{ record: AccountRecord }>('SELECT record FROM account ORDER BY username');
        const keys = await client.query<{ record: KeyRecord }>('SELECT record FROM api_key ORDER BY key_id');
        const sessions = await client.query<{ record: SessionRecord }>('SELECT record FROM login_session ORDER BY session_id');
        return { accounts: accounts.rows.map((r) => r.record), keys: keys.rows.map((r) => r.record), sessions: sessions.rows.map((r) => r.record) };
      },
      async *savedRequests(): AsyncIterable<SavedRequestRecord> {
        let after = { owner: '', id: '' };
        for (;;) {
          const { rows } = await client.query<{ owner: string; id: string; record: SavedRequestRecord }>(
            'SELECT owner, id, record FROM saved_request WHERE (owner, id) > ($1, $2) ORDER BY owner, id LIMIT $3',
            [after.owner, after.id, SAVED_PAGE],
          );
          for (const row of rows) yield row.record;
          if (rows.length < SAVED_PAGE) return;
          after = rows.at(-1)!;
        }
      },
    });
  } finally {
    await client.query('COMMIT').catch(() => (broken = true));
    client.release(broken);
  }
}
