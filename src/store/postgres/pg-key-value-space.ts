import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { lastOpOnEachKey, type EntryReader, type KeyRange, type OrderedKeyValueStore, type PutOp, type SnapshotReads, type WriteOp } from '../ordered-kv.ts';
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
  const deletes: Buffer[] = [];
  const putKeys: Buffer[] = [];
  const putValues: Buffer[] = [];
  // One op per key: an upsert may not touch a row twice.
  for (const op of lastOpOnEachKey(ops)) {
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

/** PostgreSQL's binary COPY format: signature, flags, header extension length. */
const COPY_HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
const COPY_TRAILER = Buffer.from([0xff, 0xff]);
const COPY_CHUNK_ROWS = 1000;

/** Rows of (key, value) in binary COPY format, a chunk of rows per buffer. */
function* copyRows(puts: PutOp[]): Generator<Buffer> {
  yield COPY_HEADER;
  for (let start = 0; start < puts.length; start += COPY_CHUNK_ROWS) {
    const chunk = puts.slice(start, start + COPY_CHUNK_ROWS);
    const buffer = Buffer.allocUnsafe(chunk.reduce((sum, put) => sum + 10 + put.key.byteLength + put.value.byteLength, 0));
    let at = 0;
    for (const { key, value } of chunk) {
      at = buffer.writeInt16BE(2, at);
      at = buffer.writeInt32BE(key.byteLength, at);
      at += bytes(key).copy(buffer, at);
      at = buffer.writeInt32BE(value.byteLength, at);
      at += bytes(value).copy(buffer, at);
    }
    yield buffer;
  }
  yield COPY_TRAILER;
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

  /**
   * COPY straight into the table, which is several times cheaper than an insert per row; keys already there
   * (the same data loaded again) make it fail, and the batch then goes through the upserting `write`.
   */
  async writeBulk(puts: PutOp[]): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await client.query('SET LOCAL synchronous_commit = off');
      await client.query('SAVEPOINT copy');
      try {
        await pipeline(Readable.from(copyRows(puts)), client.query(copyFrom('COPY timeline_kv (key, value) FROM STDIN (FORMAT binary)')));
      } catch (error) {
        if ((error as { code?: string }).code !== '23505') throw error;
        await client.query('ROLLBACK TO SAVEPOINT copy');
        await writeOps(client, puts);
      }
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
      return await work({ reader: (range) => new RangeReader(client, range) });
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
export class RangeReader implements EntryReader {
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
