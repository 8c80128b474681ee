// Every storage backend a test can run against: LevelDB always, PostgreSQL when TMS_TEST_DATABASE_URL is set
// (`.ci/run` sets it inside pg_virtualenv). Each place is fresh: a temp folder, or a schema of its own.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openStorage } from '../../src/store/storage.ts';
import { openPostgresRecords, type RecordStores } from '../../src/store/postgres/open-postgres-records.ts';

/** One store location: opened as often as a test likes (what a restart, or a second node, sees), then removed. */
export interface TestPlace {
  open(): Promise<RecordStores>;
  remove(): Promise<void>;
}

export interface TestBackend {
  name: 'leveldb' | 'postgresql';
  newPlace(): Promise<TestPlace>;
}

export const TEST_DATABASE_URL = process.env.TMS_TEST_DATABASE_URL;
if (!TEST_DATABASE_URL && process.env.TMS_TEST_REQUIRE_POSTGRES) {
  throw new Error('TMS_TEST_REQUIRE_POSTGRES is set but TMS_TEST_DATABASE_URL is not: run the suite with scripts/with-postgres.sh');
}

const leveldb: TestBackend = {
  name: 'leveldb',
  async newPlace() {
    const dir = await mkdtemp(join(tmpdir(), 'tms-backend-'));
    return {
      open: () => openStorage({ dataDir: dir }),
      remove: () => rm(dir, { recursive: true, force: true }),
    };
  },
};

/** A schema name no other test process uses. */
export const freshSchema = (): string => `t_${randomBytes(6).toString('hex')}`;

const postgresql = (url: string): TestBackend => ({
  name: 'postgresql',
  async newPlace() {
    const schema = freshSchema();
    return {
      open: () => openPostgresRecords({ url, schema }),
      remove: () => dropSchema(url, schema),
    };
  },
});

export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

export const testBackends: readonly TestBackend[] = [leveldb, ...(TEST_DATABASE_URL ? [postgresql(TEST_DATABASE_URL)] : [])];
