import type pg from 'pg';
import type { SavedRequestRecord } from '../../saved-requests/records.ts';
import type { SavedRequestStore } from '../../saved-requests/saved-request-store.ts';

type Row = { record: SavedRequestRecord };

/** One row per saved request; its share token is a unique column, so a new token unlinks the old one. */
export class PgSavedRequestStore implements SavedRequestStore {
  constructor(private readonly pool: pg.Pool) {}

  async put(record: SavedRequestRecord): Promise<void> {
    await this.pool.query(
      `INSERT INTO saved_request (owner, id, share_token, record) VALUES ($1, $2, $3, $4)
       ON CONFLICT (owner, id) DO UPDATE SET share_token = EXCLUDED.share_token, record = EXCLUDED.record`,
      [record.owner, record.id, record.share_token || null, record],
    );
  }

  async get(owner: string, id: string): Promise<SavedRequestRecord | undefined> {
    const { rows } = await this.pool.query<Row>('SELECT record FROM saved_request WHERE owner = $1 AND id = $2', [owner, id]);
    return rows[0]?.record;
  }

  async findByShareToken(token: string): Promise<SavedRequestRecord | undefined> {
    const { rows } = await this.pool.query<Row>('SELECT record FROM saved_request WHERE share_token = $1', [token]);
    return rows[0]?.record;
  }

  async list(owner: string, { after, limit }: { after?: string; limit: number }): Promise<SavedRequestRecord[]> {
    const { rows } = await this.pool.query<Row>(
      'SELECT record FROM saved_request WHERE owner = $1 AND ($2::text IS NULL OR id < $2) ORDER BY id DESC LIMIT $3',
      [owner, after ?? null, limit],
    );
    return rows.map((row) => row.record);
  }

  async *all(): AsyncIterable<SavedRequestRecord> {
    let after = { owner: '', id: '' };
    for (;;) {
      const { rows } = await this.pool.query<Row & { owner: string; id: string }>(
        'SELECT owner, id, record FROM saved_request WHERE (owner, id) > ($1, $2) ORDER BY owner, id LIMIT 500',
        [after.owner, after.id],
      );
      for (const row of rows) yield row.record;
      if (rows.length < 500) return;
      after = rows.at(-1)!;
    }
  }

  async count(owner: string): Promise<number> {
    const { rows } = await this.pool.query<{ count: string }>('SELECT count(*) FROM saved_request WHERE owner = $1', [owner]);
    return Number(rows[0]!.count);
  }

  async delete(record: SavedRequestRecord): Promise<void> {
    await this.pool.query('DELETE FROM saved_request WHERE owner = $1 AND id = $2', [record.owner, record.id]);
  }
}
