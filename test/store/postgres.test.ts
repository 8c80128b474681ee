// The PostgreSQL backend's own machinery: bounded waits, retried transactions, migrations that run once.
// The cases that need a server run when TMS_TEST_DATABASE_URL is set (as `.ci/run` does).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import { openPool } from '../../src/store/postgres/pool.ts';
import { inTransaction } from '../../src/store/postgres/transaction.ts';
import { LATEST_VERSION, MIGRATIONS, migrate } from '../../src/store/postgres/migrations.ts';
import { TEST_DATABASE_URL, dropSchema, freshSchema } from '../support/backends.ts';
import { createDatabase, createRole, dropDatabase, withClient } from '../support/postgres.ts';
import { openStorage } from '../../src/store/storage.ts';
import { PgKeyValueSpace } from '../../src/store/postgres/pg-key-value-space.ts';
import { RUN_TYPESCRIPT } from '../../src/typescript/node-options.ts';

const codeOf = (error: unknown) => (error as { code?: string }).code;

test('a schema name that is not a plain identifier is refused before anything connects', () => {
  for (const schema of ['Public', 'a-b', 'x; DROP TABLE account', '']) {
    assert.throws(() => openPool({ url: 'postgres://127.0.0.1:1/tms', schema }), /PostgreSQL schema .*lower-case letters, digits and _/);
  }
});

/** `tms migrate`, the real command. */
function migrateCommand(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const environment = { ...process.env, ...env };
    if (!('TMS_DATABASE_URL' in env)) delete environment.TMS_DATABASE_URL;
    execFile(process.execPath, [...RUN_TYPESCRIPT, join('src', 'cli', 'main.ts'), 'migrate'], { env: environment, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

test('tms migrate needs a database URL, and says when it cannot reach the database', async () => {
  const none = await migrateCommand({});
  assert.is(none.code, 1);
  assert.match(none.stderr, /required option '--database-url <url>' not specified/);
  const unreachable = await migrateCommand({ TMS_DATABASE_URL: 'postgres://tms:pw@127.0.0.1:1/tms' });
  assert.is(unreachable.code, 1);
  assert.match(unreachable.stderr, /error: cannot reach the database at tms@127\.0\.0\.1:1\/tms/);
});

test('a database nobody listens on fails at once, not after a hang', async () => {
  const pool = openPool({ url: 'postgres://tms@127.0.0.1:1/tms', connectTimeoutMs: 2_000 });
  const started = performance.now();
  try {
    await pool.query('SELECT 1');
    assert.unreachable('connected to port 1');
  } catch (error) {
    assert.is(codeOf(error), 'ECONNREFUSED');
  } finally {
    await pool.end();
  }
  assert.ok(performance.now() - started < 2_000);
});

if (TEST_DATABASE_URL) {
  const url = TEST_DATABASE_URL;
  const withPools = async (count: number, work: (pools: pg.Pool[], schema: string) => Promise<void>, options = {}) => {
    const schema = freshSchema();
    const pools = Array.from({ length: count }, () => openPool({ url, schema, ...options }));
    try {
      await work(pools, schema);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
      await dropSchema(url, schema);
    }
  };

  test('tms migrate brings a new database to the latest version, then has nothing to do', async () => {
    const databaseUrl = await createDatabase(url);
    try {
      const first = await migrateCommand({ TMS_DATABASE_URL: databaseUrl });
      assert.is(first.code, 0, first.stderr);
      assert.is(first.stdout, `schema migrated from version 0 to ${LATEST_VERSION}\n`);
      const again = await migrateCommand({ TMS_DATABASE_URL: databaseUrl });
      assert.is(again.stdout, `schema already at version ${LATEST_VERSION}\n`);
    } finally {
      await dropDatabase(url, databaseUrl);
    }
  });

  test('a service user that may only read and write the tables their owner migrated opens the store', async () => {
    const databaseUrl = await createDatabase(url);
    const role = `tms_rw_${process.pid}`;
    try {
      const migrated = await migrateCommand({ TMS_DATABASE_URL: databaseUrl });
      assert.is(migrated.code, 0, migrated.stderr);
      const serviceUrl = await createRole(databaseUrl, role, 'USAGE', 'SELECT, INSERT, UPDATE, DELETE');
      const storage = await openStorage({ dataDir: '', databaseUrl: serviceUrl });
      try {
        const created = await storage.timelines.createTimeline({ kind: 'alternate', base_timeline_id: 'primary', description: 'by the service user', variation: '', owner: '' });
        assert.is((await storage.timelines.getTimeline(created.timeline_id))?.description, 'by the service user');
      } finally {
        await storage.close();
      }
    } finally {
      await dropDatabase(url, databaseUrl);
      await withClient(url, (client) => client.query(`DROP ROLE IF EXISTS ${role}`));
    }
  });

  test('nodes starting together on an empty database run each migration exactly once', async () => {
    await withPools(4, async (pools, schema) => {
      const outcomes = await Promise.all(pools.map((pool) => migrate(pool, schema)));
      assert.equal(outcomes.filter((o) => o.from === 0), [{ from: 0, to: LATEST_VERSION }], 'one node migrated');
      assert.ok(outcomes.every((o) => o.to === LATEST_VERSION));
      const log = await pools[0]!.query('SELECT version FROM tms_migration_log ORDER BY version');
      assert.equal(log.rows.map((row) => row.version), MIGRATIONS.map((m) => m.version));
      assert.equal(await migrate(pools[1]!, schema), { from: LATEST_VERSION, to: LATEST_VERSION }, 'a restart has nothing to do');
    });
  });

  test('a database a newer build migrated is refused with what to do', async () => {
    await withPools(1, async ([pool], schema) => {
      await migrate(pool!, schema);
      await pool!.query('UPDATE tms_schema_version SET version = $1', [LATEST_VERSION + 1]);
      try {
        await migrate(pool!, schema);
        assert.unreachable('migrated a newer schema');
      } catch (error) {
        assert.match(String(error), `the database's tms schema is version ${LATEST_VERSION + 1}, newer than this build's ${LATEST_VERSION}: run a newer tms`);
      }
    });
  });

  test('a migration that fails leaves the schema as it was, the earlier steps of the same run included', async () => {
    await withPools(1, async ([pool], schema) => {
      const broken = [...MIGRATIONS, { version: LATEST_VERSION + 1, name: 'broken', sql: 'CREATE TABLE fine (x int); SELECT no_such_function()' }];
      try {
        await migrate(pool!, schema, broken);
        assert.unreachable('a broken migration succeeded');
      } catch (error) {
        assert.is(codeOf(error), '42883');
      }
      const version = await pool!.query('SELECT version FROM tms_schema_version');
      assert.is(version.rows[0].version, 0);
      const tables = await pool!.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`, [schema]);
      assert.equal(tables.rows.map((row) => row.table_name), ['tms_migration_log', 'tms_schema_version']);
    });
  });

  test('migration 7 removes keys and sessions whose account is gone, and from then on they go with their account', async () => {
    await withPools(1, async ([pool], schema) => {
      await migrate(pool!, schema, MIGRATIONS.filter((migration) => migration.version < 7));
      const record = (kind: string, id: string, account: string) => JSON.stringify({ [kind]: id, account });
      await pool!.query(`INSERT INTO account (username, record) VALUES ('kept', '{"username":"kept"}')`);
      const owners: [string, string][] = [
        ['1', 'kept'],
        ['2', 'gone'],
      ];
      for (const [n, account] of owners) {
        await pool!.query('INSERT INTO api_key (key_id, record) VALUES ($1, $2)', [`k${n}`, record('key_id', `k${n}`, account)]);
        await pool!.query('INSERT INTO login_session (session_id, record) VALUES ($1, $2)', [`s${n}`, record('session_id', `s${n}`, account)]);
      }
      assert.equal(await migrate(pool!, schema), { from: 6, to: LATEST_VERSION });
      assert.equal((await pool!.query('SELECT key_id FROM api_key')).rows, [{ key_id: 'k1' }]);
      assert.equal((await pool!.query('SELECT session_id FROM login_session')).rows, [{ session_id: 's1' }]);
      try {
        await pool!.query('INSERT INTO api_key (key_id, record) VALUES ($1, $2)', ['k3', record('key_id', 'k3', 'gone')]);
        assert.unreachable('a key of no account was written');
      } catch (error) {
        assert.is(codeOf(error), '23503');
      }
      await pool!.query(`DELETE FROM account WHERE username = 'kept'`);
      assert.is((await pool!.query('SELECT count(*)::int AS n FROM api_key')).rows[0].n, 0);
      assert.is((await pool!.query('SELECT count(*)::int AS n FROM login_session')).rows[0].n, 0);
    });
  });

  test('every wait is bounded: a statement, a lock, and a connection from a full pool', async () => {
    await withPools(1, async ([pool]) => {
      try {
        await pool!.query('SELECT pg_sleep(2)');
        assert.unreachable('the statement ran past its limit');
      } catch (error) {
        assert.is(codeOf(error), '57014', 'query_canceled by statement_timeout');
      }
    }, { statementTimeoutMs: 100 });
    await withPools(1, async ([pool], schema) => {
      await migrate(pool!, schema);
      const holder = await pool!.connect();
      await holder.query('BEGIN');
      await holder.query('SELECT * FROM tms_schema_version FOR UPDATE');
      try {
        const waiting = await pool!.connect();
        try {
          await waiting.query('SELECT * FROM tms_schema_version FOR UPDATE');
          assert.unreachable('took a lock that is held');
        } catch (error) {
          assert.is(codeOf(error), '55P03', 'lock_not_available by lock_timeout');
        } finally {
          waiting.release();
        }
      } finally {
        await holder.query('ROLLBACK');
        holder.release();
      }
    }, { lockTimeoutMs: 100, statementTimeoutMs: 5_000 });
    await withPools(1, async ([pool]) => {
      const held = await pool!.connect();
      try {
        await pool!.connect();
        assert.unreachable('a second connection from a pool of one');
      } catch (error) {
        assert.match(String(error), /timeout/i);
      } finally {
        held.release();
      }
    }, { maxConnections: 1, connectTimeoutMs: 200 });
  });

  test('bulk batches go in by binary COPY, and a batch with keys already there falls back to upserts, all or nothing', async () => {
    await withPools(1, async ([pool], schema) => {
      await migrate(pool!, schema);
      const kv = new PgKeyValueSpace(pool!);
      const put = (key: string, value: string) => ({ type: 'put' as const, key: Buffer.from(key), value: Buffer.from(value) });
      const many = Array.from({ length: 2500 }, (_, i) => put(`k${String(i).padStart(5, '0')}`, `v${i}`));
      await kv.writeBulk(many);
      assert.is((await kv.keys({})).length, 2500, 'more rows than one COPY chunk');
      assert.equal(Buffer.from((await kv.get(Buffer.from('k01234')))!).toString(), 'v1234');
      await kv.writeBulk([put('k00001', 'again'), put('new', 'n'), put('new', 'last wins')]);
      assert.equal(Buffer.from((await kv.get(Buffer.from('k00001')))!).toString(), 'again');
      assert.equal(Buffer.from((await kv.get(Buffer.from('new')))!).toString(), 'last wins');
      assert.is((await kv.keys({})).length, 2501);
      const empty = new Uint8Array();
      await kv.writeBulk([put('binary', ''), { type: 'put', key: new Uint8Array([0, 255, 10]), value: empty }]);
      assert.equal([...(await kv.get(new Uint8Array([0, 255, 10])))!], []);
    });
  });

  test('a transaction that meets a serialization failure runs again from the start, and its first try left nothing', async () => {
    await withPools(1, async ([pool], schema) => {
      await migrate(pool!, schema);
      let attempts = 0;
      const result = await inTransaction(pool!, async (client) => {
        attempts++;
        await client.query(`INSERT INTO account (username, record) VALUES ($1, '{}')`, [`try-${attempts}`]);
        if (attempts === 1) throw Object.assign(new Error('could not serialize access'), { code: '40001' });
        return 'done';
      });
      assert.is(result, 'done');
      assert.is(attempts, 2);
      const rows = await pool!.query('SELECT username FROM account ORDER BY 1');
      assert.equal(rows.rows.map((row) => row.username), ['try-2']);
      try {
        await inTransaction(pool!, async () => {
          throw Object.assign(new Error('duplicate'), { code: '23505' });
        });
        assert.unreachable('an error that is not a retryable one was retried away');
      } catch (error) {
        assert.is(codeOf(error), '23505');
      }
    });
  });
}

test.run();
