import type pg from 'pg';

/** SQLSTATEs that mean "run the transaction again": serialization failure, deadlock. */
const RETRYABLE = new Set(['40001', '40P01']);
const ATTEMPTS = 5;

/**
 * Runs `work` in one transaction, and again from the start (up to 5 times, with a short random pause)
 * when the database reports a serialization failure or a deadlock.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    // A connection that cannot even roll back is dropped, not handed to the next caller.
    let broken = false;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => (broken = true));
      if (attempt >= ATTEMPTS || !RETRYABLE.has((error as { code?: string }).code ?? '')) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    } finally {
      client.release(broken);
    }
  }
}
