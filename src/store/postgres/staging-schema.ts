/**
 * A whole store written beside the target and swapped in at once: `tms restore` and `tms copy-store` write into a
 * schema of their own (`tms_staging_<pid>`), check it there, and move its tables over the empty target's in one
 * transaction, so the target holds the whole store or stays as it was.
 */
import pg from 'pg';
import { openPool } from './pool.ts';
import { inTransaction } from './transaction.ts';

const PREFIX = 'tms_staging_';
/** The schema the service keeps its tables in. */
export const TARGET_SCHEMA = 'public';
/** Creating a schema needs the CREATE right on the database. */
const INSUFFICIENT_PRIVILEGE = '42501';

export const stagingSchemaName = (pid: number): string => `${PREFIX}${pid}`;

/** The target changed between the check that found it empty and the swap (a service or another restore wrote to it). */
export class TargetChangedError extends Error {
  override name = 'TargetChangedError';
}

async function withPool<T>(url: string, work: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = openPool({ url, maxConnections: 1 });
  try {
    return await work(pool);
  } finally {
    await pool.end();
  }
}

/**
 * Makes an empty staging schema, after dropping those earlier restores left when they were cut short. False
 * when the database does not let this user create a schema: the restore then loads into the target itself.
 */
export function prepareStagingSchema(url: string, schema: string): Promise<boolean> {
  return withPool(url, async (pool) => {
    const { rows } = await pool.query<{ name: string }>(`SELECT nspname AS name FROM pg_namespace WHERE starts_with(nspname, $1)`, [PREFIX]);
    // Best effort: one this user may not drop (another's) is in nobody's way.
    for (const { name } of rows) await pool.query(`DROP SCHEMA ${pg.escapeIdentifier(name)} CASCADE`).catch(() => undefined);
    try {
      await pool.query(`CREATE SCHEMA ${pg.escapeIdentifier(schema)}`);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === INSUFFICIENT_PRIVILEGE) return false;
      throw error;
    }
  });
}

/** Drops the staging schema and all it holds; for a restore that failed before the swap. */
export function dropStagingSchema(url: string, schema: string): Promise<void> {
  return withPool(url, async (pool) => {
    await pool.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
  });
}

/** The target's commit and account clocks: any write to the store moves one of them. */
async function clocks(client: pg.ClientBase, lock: boolean): Promise<string> {
  const target = pg.escapeIdentifier(TARGET_SCHEMA);
  const forUpdate = lock ? ' FOR UPDATE' : '';
  const commit = await client.query<{ lsn: string }>(`SELECT lsn FROM ${target}.tms_clock${forUpdate}`);
  const accounts = await client.query<{ stamp: string }>(`SELECT stamp FROM ${target}.tms_account_clock${forUpdate}`);
  return `${commit.rows[0]?.lsn}/${accounts.rows[0]?.stamp}`;
}

/** The target's clocks as they stand now, to hand to `swapIn` once the staged copy is checked. */
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
 * In one transaction: checks that the target's clocks still read `expected` (nothing wrote to it since it was
 * found empty), drops the target's tables that the staging schema also has, moves the staging tables (with their
 * indexes and constraints) into the target schema, and drops the staging schema.
 */
export function swapIn(url: string, schema: string, expected: string): Promise<void> {
  return withPool(url, (pool) =>
    inTransaction(pool, async (client) => {
      await client.query('SET LOCAL lock_timeout = 5000');
      const now = await clocks(client, true);
      if (now !== expected) throw new TargetChangedError(`the target changed while the backup loaded (its clocks moved from ${expected} to ${now})`);
      const { rows } = await client.query<{ name: string }>('SELECT tablename AS name FROM pg_tables WHERE schemaname = $1', [schema]);
      const target = pg.escapeIdentifier(TARGET_SCHEMA);
      for (const { name } of rows) {
        await client.query(`DROP TABLE IF EXISTS ${target}.${pg.escapeIdentifier(name)} CASCADE`);
        await client.query(`ALTER TABLE ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(name)} SET SCHEMA ${target}`);
      }
      await client.query(`DROP SCHEMA ${pg.escapeIdentifier(schema)}`);
    }),
  );
}
