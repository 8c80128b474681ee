/**
 * A whole store written beside the target and put in place at once: `tms restore` and `tms copy-store` write into a
 * schema of their own (`tms_staging_<random>`), check it there, and then, in one transaction, empty the target's
 * tables and fill them from it. The target's tables stay (their owner, grants and migration history with them), and
 * the target holds the whole store or stays as it was.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPool } from './pool.ts';
import { inTransaction } from './transaction.ts';

const PREFIX = 'tms_staging_';
/** The schema the service keeps its tables in. */
const TARGET_SCHEMA = 'public';
/** Creating a schema needs the CREATE right on the database. */
const INSUFFICIENT_PRIVILEGE = '42501';
/** Which migrations ran, and when: the target's own history, not the staging copy's. */
const TARGET_ONLY = new Set(['tms_schema_version', 'tms_migration_log']);
/** Tables that hold records of accounts; an empty target has none, and must still have none when it is filled. */
const ACCOUNT_TABLES = ['account', 'api_key', 'login_session', 'saved_request'];

/** A name no other run uses: the pid alone repeats across containers. */
export const newStagingSchemaName = (): string => `${PREFIX}${randomBytes(6).toString('hex')}`;

/** The target changed between the check that found it empty and the swap (a service or another writer wrote to it). */
export class TargetChangedError extends Error {
  override name = 'TargetChangedError';
}

const quoted = (name: string): string => pg.escapeIdentifier(name);

async function withPool<T>(url: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = openPool({ url, maxConnections: 1 });
  try {
    return await work(pool);
  } finally {
    await pool.end();
  }
}

/** Staging schemas in the database: runs under way, or left by runs cut short. */
export function stagingSchemas(url: string): Promise<string[]> {
  return withPool(url, async (pool) => {
    const { rows } = await pool.query<{ name: string }>('SELECT nspname AS name FROM pg_namespace WHERE starts_with(nspname, $1) ORDER BY 1', [PREFIX]);
    return rows.map((row) => row.name);
  });
}

/** False when the database does not let this user create a schema: the caller then writes into the target itself. */
export function createStagingSchema(url: string, schema: string): Promise<boolean> {
  return withPool(url, async (pool) => {
    try {
      await pool.query(`CREATE SCHEMA ${quoted(schema)}`);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === INSUFFICIENT_PRIVILEGE) return false;
      throw error;
    }
  });
}

/** Drops a staging schema and all it holds. */
export function dropStagingSchema(url: string, schema: string): Promise<void> {
  return withPool(url, async (pool) => {
    await pool.query(`DROP SCHEMA IF EXISTS ${quoted(schema)} CASCADE`);
  });
}

/** The SQL that drops a staging schema, for an operator to run. */
export const dropStagingSql = (schema: string): string => `DROP SCHEMA ${quoted(schema)} CASCADE`;

/** The target's commit and account clocks: a write to its timelines or its accounts moves one of them. */
async function clocks(client: pg.ClientBase, lock: boolean): Promise<string> {
  const forUpdate = lock ? ' FOR UPDATE' : '';
  const commit = await client.query<{ lsn: string }>(`SELECT lsn FROM ${quoted(TARGET_SCHEMA)}.tms_clock${forUpdate}`);
  const accounts = await client.query<{ stamp: string }>(`SELECT stamp FROM ${quoted(TARGET_SCHEMA)}.tms_account_clock${forUpdate}`);
  return `${commit.rows[0]?.lsn}/${accounts.rows[0]?.stamp}`;
}

/** The target's clocks as they stand, to hand to `swapIn`: read them before checking that the target is empty. */
export function targetClocks(url: string): Promise<string> {
  return withPool(url, async (pool) => {
    const client = await pool.connect();
    try {
      return await clocks(client, false);
    } finally {
      client.release();
    }
  });
}

/**
 * In one transaction: checks that the target's clocks still read `expected` and that it still has no accounts, keys,
 * sessions or saved requests; empties each of its tables that the staging schema has (but its migration history)
 * and fills it from there; drops the staging schema.
 */
export function swapIn(url: string, schema: string, expected: string): Promise<void> {
  return withPool(url, (pool) =>
    inTransaction(pool, async (client) => {
      await client.query('SET LOCAL lock_timeout = 5000');
      // Copying a large store's rows takes longer than the pool's statement limit.
      await client.query('SET LOCAL statement_timeout = 0');
      const now = await clocks(client, true);
      if (now !== expected) throw new TargetChangedError(`the target changed while the store was written beside it (its clocks moved from ${expected} to ${now})`);
      const counted = ACCOUNT_TABLES.map((table) => `(SELECT count(*) FROM ${quoted(TARGET_SCHEMA)}.${quoted(table)})`).join(' + ');
      const { rows: held } = await client.query<{ n: string }>(`SELECT ${counted} AS n`);
      if (Number(held[0]!.n) > 0) throw new TargetChangedError('the target gained accounts, keys, sessions or saved requests while the store was written beside it');
      // Keys and sessions refer to their accounts: checked at the commit, when every table is filled.
      await client.query('SET CONSTRAINTS ALL DEFERRED');
      // Generated columns (a key's account) are computed again as rows go in.
      const { rows } = await client.query<{ name: string; columns: string[] }>(
        `SELECT table_name AS name, array_agg(column_name::text ORDER BY ordinal_position) AS columns FROM information_schema.columns
         WHERE table_schema = $1 AND is_generated = 'NEVER' GROUP BY table_name ORDER BY 1`,
        [schema],
      );
      for (const { name, columns } of rows) {
        if (TARGET_ONLY.has(name)) continue;
        const target = `${quoted(TARGET_SCHEMA)}.${quoted(name)}`;
        const list = columns.map(quoted).join(', ');
        await client.query(`DELETE FROM ${target}`);
        await client.query(`INSERT INTO ${target} (${list}) SELECT ${list} FROM ${quoted(schema)}.${quoted(name)}`);
      }
      await client.query(`DROP SCHEMA ${quoted(schema)} CASCADE`);
    }),
  );
}
