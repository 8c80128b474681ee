import type pg from 'pg';
import { inTransaction } from './transaction.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Every schema change, in order; a released one is never edited, only followed by a new one. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'accounts, API keys, login sessions, saved console requests',
    sql: `
      CREATE TABLE account (username text COLLATE "C" PRIMARY KEY, record jsonb NOT NULL);
      CREATE TABLE api_key (key_id text COLLATE "C" PRIMARY KEY, record jsonb NOT NULL);
      CREATE TABLE login_session (session_id text COLLATE "C" PRIMARY KEY, record jsonb NOT NULL);
      CREATE TABLE saved_request (
        owner text COLLATE "C" NOT NULL,
        id text COLLATE "C" NOT NULL,
        share_token text COLLATE "C" UNIQUE,
        record jsonb NOT NULL,
        PRIMARY KEY (owner, id)
      );
    `,
  },
  {
    version: 2,
    name: 'timelines: the copy-on-write store\'s keys and values',
    sql: `CREATE TABLE timeline_kv (key bytea PRIMARY KEY, value bytea NOT NULL);`,
  },
  {
    version: 3,
    name: 'the lease of the node that serves the database',
    sql: `
      CREATE TABLE tms_node_lease (
        one boolean PRIMARY KEY DEFAULT true CHECK (one),
        node_id text NOT NULL,
        expires_at timestamptz NOT NULL
      );
    `,
  },
  {
    version: 4,
    name: 'many nodes: commit clock and log, bulk-load claims, account clock and lockouts (the one-node lease goes)',
    sql: `
      DROP TABLE tms_node_lease;
      CREATE TABLE tms_clock (
        one boolean PRIMARY KEY DEFAULT true CHECK (one),
        lsn bigint NOT NULL,
        pruned_below bigint NOT NULL DEFAULT 0
      );
      INSERT INTO tms_clock (lsn) VALUES (0);
      CREATE TABLE tms_commit_log (lsn bigint PRIMARY KEY, note bytea NOT NULL);
      CREATE TABLE tms_bulk_load (level integer PRIMARY KEY);
      CREATE TABLE tms_account_clock (one boolean PRIMARY KEY DEFAULT true CHECK (one), stamp bigint NOT NULL);
      INSERT INTO tms_account_clock (stamp) VALUES (0);
      CREATE TABLE login_lockout (
        kind text COLLATE "C" NOT NULL,
        subject text COLLATE "C" NOT NULL,
        until timestamptz NOT NULL,
        PRIMARY KEY (kind, subject)
      );
    `,
  },
  {
    version: 5,
    name: 'accounts: a log of what each account change touched, so nodes load only that',
    sql: `
      CREATE TABLE account_change_log (
        stamp bigint NOT NULL,
        kind text COLLATE "C" NOT NULL,
        subject text COLLATE "C" NOT NULL,
        PRIMARY KEY (stamp, kind, subject)
      );
    `,
  },
  {
    version: 6,
    name: 'accounts: an epoch per database, so that a node never reads notes of a database made again as its own',
    sql: `
      ALTER TABLE tms_account_clock ADD COLUMN epoch text NOT NULL DEFAULT md5(random()::text || clock_timestamp()::text);
    `,
  },
  {
    version: 7,
    name: "accounts: keys and sessions belong to an account that exists, and go with it (those left by a removal that raced a write go now)",
    sql: `
      -- A node of the version before may be writing keys and sessions meanwhile: none may slip in between.
      LOCK TABLE account, api_key, login_session IN SHARE ROW EXCLUSIVE MODE;
      DELETE FROM api_key WHERE NOT EXISTS (SELECT FROM account WHERE account.username = api_key.record->>'account');
      DELETE FROM login_session WHERE NOT EXISTS (SELECT FROM account WHERE account.username = login_session.record->>'account');
      ALTER TABLE api_key ADD COLUMN account text COLLATE "C" GENERATED ALWAYS AS (record->>'account') STORED
        REFERENCES account (username) ON DELETE CASCADE DEFERRABLE;
      ALTER TABLE login_session ADD COLUMN account text COLLATE "C" GENERATED ALWAYS AS (record->>'account') STORED
        REFERENCES account (username) ON DELETE CASCADE DEFERRABLE;
      CREATE INDEX api_key_account ON api_key (account);
      CREATE INDEX login_session_account ON login_session (account);
    `,
  },
  {
    version: 8,
    name: 'timelines: an epoch per database, so that a node never takes the commits of a database made again for those it loaded',
    sql: `
      ALTER TABLE tms_clock ADD COLUMN epoch text NOT NULL DEFAULT md5(random()::text || clock_timestamp()::text);
    `,
  },
];

export const LATEST_VERSION = MIGRATIONS.at(-1)!.version;

export interface MigrationOutcome {
  from: number;
  to: number;
}

/**
 * SQLSTATEs of sessions creating the same objects at once with IF NOT EXISTS: the loser tries again. 3F000
 * ("no schema has been selected to create in") is a session whose search path was worked out while another
 * session's new schema was not yet visible to it; on the next try it is.
 */
const CREATED_CONCURRENTLY = new Set(['23505', '42P07', '42P06', '42710', '3F000']);

/**
 * Brings the schema to the latest version, exactly once however many nodes start together: the version row
 * is locked (a row lock, not an advisory lock, which distributed PostgreSQL-compatible engines lack) for the
 * whole transaction that applies the missing migrations.
 */
export async function migrate(pool: pg.Pool, schema: string, migrations: readonly Migration[] = MIGRATIONS): Promise<MigrationOutcome> {
  await createVersionTable(pool, schema);
  return inTransaction(pool, async (client) => {
    // Another node may be migrating: wait for it rather than fail at the usual lock limit.
    await client.query(`SET LOCAL lock_timeout = '120s'`);
    await client.query('SET LOCAL statement_timeout = 0');
    const { rows } = await client.query<{ version: number }>('SELECT version FROM tms_schema_version FOR UPDATE');
    const from = rows[0]!.version;
    const latest = migrations.at(-1)?.version ?? 0;
    if (from > latest) {
      throw new Error(`the database's tms schema is version ${from}, newer than this build's ${latest}: run a newer tms`);
    }
    for (const migration of migrations.filter((m) => m.version > from)) {
      await client.query(migration.sql);
      await client.query('INSERT INTO tms_migration_log (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
    }
    await client.query('UPDATE tms_schema_version SET version = $1', [Math.max(from, latest)]);
    return { from, to: Math.max(from, latest) };
  });
}

async function createVersionTable(pool: pg.Pool, schema: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      // Only when missing: creating a schema needs a right on the whole database that tms otherwise does without.
      const existing = await pool.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
      if (existing.rowCount === 0) await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      // Creating, even "if not exists", needs CREATE on the schema: a service user that only reads and writes the
      // tables its owner migrated does not have it.
      const { rows } = await pool.query<{ ready: boolean }>(
        "SELECT to_regclass('tms_schema_version') IS NOT NULL AND to_regclass('tms_migration_log') IS NOT NULL AS ready",
      );
      if (rows[0]!.ready) return;
      await pool.query(`
        CREATE TABLE IF NOT EXISTS tms_schema_version (
          one boolean PRIMARY KEY DEFAULT true CHECK (one),
          version integer NOT NULL
        );
        CREATE TABLE IF NOT EXISTS tms_migration_log (
          version integer PRIMARY KEY,
          name text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now()
        );
        INSERT INTO tms_schema_version (version) VALUES (0) ON CONFLICT DO NOTHING;
      `);
      return;
    } catch (error) {
      if (attempt >= 5 || !CREATED_CONCURRENTLY.has((error as { code?: string }).code ?? '')) throw error;
    }
  }
}
