import type pg from 'pg';
import type { EntryReader, KeyRange, OrderedKeyValueStore, SnapshotReads, WriteOp } from '../ordered-kv.ts';
import { inTransaction } from './transaction.ts';

type Entry = [Uint8Array, Uint8Array];

/** pg sends a Buffer as bytea, but any other Uint8Array as JSON: view the same bytes as a Buffer. */
const bytes = (view: Uint8Array): Buffer => (Buffer.isBuffer(view) ? view : Buffer.from(view.buffer, view.byteOffset, view.byteLength));

/** The WHERE clause and parameters of a range (`bytea` compares byte by byte, as LevelDB keys do). */
function rangeWhere(range: KeyRange, params: unknown[]): string {
  const conditions: string[] = [];
  if (range.gt) conditions.push(`key > $${params.push(bytes(range.gt))}`);
  if (range.gte) conditions.push(`key >= $${params.push(bytes(range.gte))}`);
  if (range.lt) conditions.push(`key < $${params.push(bytes(range.lt))}`);
  return conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
}

function rangeQuery(columns: string, range: KeyRange): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const where = rangeWhere(range, values);
  const limit = range.limit !== undefined && range.limit >= 0 ? ` LIMIT $${values.push(range.limit)}` : '';
  return { text: `SELECT ${columns} FROM timeline_kv ${where} ORDER BY key${limit}`, values };
}

/** Applies a batch within the caller's transaction; the last op on a key wins, as in a LevelDB batch. */
export async function writeOps(client: pg.ClientBase, ops: WriteOp[]): Promise<void> {
  const last = new Map<string, WriteOp>();
  for (const op of ops) last.set(bytes(op.key).toString('hex'), op);
  const deletes: Buffer[] = [];
  const putKeys: Buffer[] = [];
  const putValues: Buffer[] = [];
  for (const op of last.values()) {
    if (op.type === 'del') deletes.push(bytes(op.key));
    else {
      putKeys.push(bytes(op.key));
      putValues.push(bytes(op.value));
    }
  }
  if (deletes.length > 0) await client.query('DELETE FROM timeline_kv WHERE key = ANY($1::bytea[])', [deletes]);
  if (putKeys.length > 0) {
    await client.query(
      `INSERT INTO timeline_kv (key, value) SELECT * FROM unnest($1::bytea[], $2::bytea[])
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
      [putKeys, putValues],
    );
  }
}

/**
 * The timeline store's keys as rows of one table, `timeline_kv (key bytea PRIMARY KEY, value bytea)`: a batch
 * is one transaction, and a snapshot is one REPEATABLE READ transaction on one connection.
 */
export class PgKeyValueSpace implements OrderedKeyValueStore {
  constructor(private readonly pool: pg.Pool) {}

  async open(): Promise<void> {}

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    const { rows } = await this.pool.query<{ value: Buffer }>('SELECT value FROM timeline_kv WHERE key = $1', [bytes(key)]);
    return rows[0]?.value;
  }

  async getMany(keys: Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    if (keys.length === 0) return [];
    const { rows } = await this.pool.query<{ key: Buffer; value: Buffer }>('SELECT key, value FROM timeline_kv WHERE key = ANY($1::bytea[])', [
      keys.map(bytes),
    ]);
    const found = new Map(rows.map((row) => [row.key.toString('hex'), row.value]));
    return keys.map((key) => found.get(bytes(key).toString('hex')));
  }

  async write(ops: WriteOp[], durable: boolean): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      // Bulk loads: a crash may lose the last batches, which the load's own recovery redoes.
      if (!durable) await client.query('SET LOCAL synchronous_commit = off');
      await writeOps(client, ops);
    });
  }

  async keys(range: KeyRange): Promise<Uint8Array[]> {
    const { rows } = await this.pool.query<{ key: Buffer }>(rangeQuery('key', range));
    return rows.map((row) => row.key);
  }

  async entries(range: KeyRange): Promise<Entry[]> {
    const { rows } = await this.pool.query<{ key: Buffer; value: Buffer }>(rangeQuery('key, value', range));
    return rows.map((row) => [row.key, row.value]);
  }

  async snapshot<T>(work: (reads: SnapshotReads) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      return await work({
        reader: (range) => new RangeReader(client, range),
        commitHead: async () => Number((await client.query<{ lsn: string }>('SELECT lsn FROM tms_clock')).rows[0]!.lsn),
      });
    } finally {
      await client.query('COMMIT').catch(() => (broken = true));
      client.release(broken);
    }
  }

  async clear(range: KeyRange): Promise<void> {
    const values: unknown[] = [];
    await this.pool.query(`DELETE FROM timeline_kv ${rangeWhere(range, values)}`, values);
  }

  /** PostgreSQL reuses the space of deleted rows by itself (autovacuum): nothing to do. */
  async compact(): Promise<void> {}
}

/** A range read a chunk at a time, each chunk continuing after the last key of the one before. */
class RangeReader implements EntryReader {
  private range: KeyRange;

  constructor(
    private readonly client: pg.PoolClient,
    range: KeyRange,
  ) {
    this.range = { ...range };
  }

  async next(count: number): Promise<Entry[]> {
    const remaining = this.range.limit ?? Infinity;
    if (remaining <= 0) return [];
    const { rows } = await this.client.query<{ key: Buffer; value: Buffer }>(rangeQuery('key, value', { ...this.range, limit: Math.min(count, remaining) }));
    const lastKey = rows.at(-1)?.key;
    if (lastKey) {
      const { gte: _from, ...rest } = this.range;
      this.range = { ...rest, gt: lastKey, ...(this.range.limit !== undefined && { limit: this.range.limit - rows.length }) };
    }
    return rows.map((row) => [row.key, row.value]);
  }

  async close(): Promise<void> {}
}
