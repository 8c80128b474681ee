// Every storage backend a test can run against: LevelDB always, PostgreSQL when TMS_TEST_DATABASE_URL is set
// (`.ci/run` sets it inside pg_virtualenv). Each place is fresh: a temp folder, or a schema of its own.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import type { OrderedKeyValueStore } from '../../src/store/ordered-kv.ts';
import { KeyValueSpace } from '../../src/store/level/kv-space.ts';
import { PgKeyValueSpace } from '../../src/store/postgres/pg-key-value-space.ts';
import { openPool } from '../../src/store/postgres/pool.ts';
import { openStorage, type Storage, type StorageOptions } from '../../src/store/storage.ts';
import { openPostgresStorage } from '../../src/store/postgres/open-postgres-storage.ts';
import { withClient } from './postgres.ts';

/** One store location: opened as often as a test likes (what a restart, or a second node, sees), then removed. */
export interface TestPlace {
  spec: PlaceSpec;
  open(options?: OpenOptions): Promise<Storage>;
  /** The timeline store's raw keys and values, to stage what a crash leaves behind (with the store closed). */
  openKeyValues(): Promise<{ kv: OrderedKeyValueStore; close(): Promise<void> }>;
  /** Bytes of data the backend holds for it (LevelDB: the folder's files; PostgreSQL: the rows' keys and values). */
  storageBytes(): Promise<number>;
  remove(): Promise<void>;
}

/** Where a place is, in a form another process can open (see `openPlace`). */
export type PlaceSpec = { backend: 'leveldb'; dataDir: string } | { backend: 'postgresql'; url: string; schema: string };

type OpenOptions = Pick<StorageOptions, 'primaryOwner' | 'timelineOptions'>;

/** Opens the store at `spec`, in this process or another (a child a test kills). */
export function openPlace(spec: PlaceSpec, options: OpenOptions = {}): Promise<Storage> {
  return spec.backend === 'leveldb' ? openStorage({ dataDir: spec.dataDir, ...options }) : openPostgresStorage({ url: spec.url, schema: spec.schema, ...options });
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
    const spec: PlaceSpec = { backend: 'leveldb', dataDir: dir };
    return {
      spec,
      open: (options = {}) => openPlace(spec, options),
      storageBytes: () => directoryBytes(dir),
      async openKeyValues() {
        const db = new Level<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' });
        await db.open();
        const kv = new KeyValueSpace(db, 't');
        await kv.open();
        return { kv, close: () => db.close() };
      },
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
    const spec: PlaceSpec = { backend: 'postgresql', url, schema };
    return {
      spec,
      open: (options = {}) => openPlace(spec, options),
      storageBytes: () => rowBytes(url, schema),
      async openKeyValues() {
        const pool = openPool({ url, schema });
        return { kv: new PgKeyValueSpace(pool), close: () => pool.end() };
      },
      remove: () => dropSchema(url, schema),
    };
  },
});

/** LevelDB removes files as it compacts: one listed and gone by the time it is measured holds nothing. */
async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) {
    total += await stat(join(dir, name)).then(
      (file) => file.size,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return 0;
        throw error;
      },
    );
  }
  return total;
}

/** PostgreSQL keeps the space of deleted rows for reuse rather than shrinking its files: count the rows' bytes. */
const rowBytes = (url: string, schema: string): Promise<number> =>
  withClient(url, async (client) => {
    const { rows } = await client.query(`SELECT coalesce(sum(octet_length(key) + octet_length(value)), 0) AS bytes FROM ${schema}.timeline_kv`);
    return Number(rows[0].bytes);
  });

export async function dropSchema(url: string, schema: string): Promise<void> {
  await withClient(url, (client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
}

export const testBackends: readonly TestBackend[] = [leveldb, ...(TEST_DATABASE_URL ? [postgresql(TEST_DATABASE_URL)] : [])];
