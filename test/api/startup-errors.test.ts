// A start that fails for a reason an operator can fix says so in one line on stderr, naming the cause and
// the fix, and exits non-zero, without a stack trace: a data folder not writable, locked by another
// process, damaged, or not a folder; a port in use; a bad certificate; an invalid setting.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { startServeProcess } from '../support/serve-process.ts';
import { TEST_DATABASE_URL } from '../support/backends.ts';
import { createDatabase, dropDatabase, sqlOn } from '../support/postgres.ts';
import { RUN_TYPESCRIPT } from '../../src/typescript/node-options.ts';
import { tms } from '../support/cli.ts';

interface Exit {
  code: number | null;
  stderr: string;
}

/** The real command, as `npm start` runs it (as another user when `user` is given), with a 60 s limit. */
function serve(env: Record<string, string>, user?: string): Promise<Exit> {
  // Another user may not reach this process's Node (npx keeps node@24 under root's home): it runs the system's.
  const command = [user ? 'node' : process.execPath, ...RUN_TYPESCRIPT, join('src', 'cli', 'main.ts'), 'serve'];
  const [file, args] = user ? ['runuser', ['-u', user, '--', 'env', `HOME=${tmpdir()}`, ...command]] : [command[0]!, command.slice(1)];
  return new Promise((resolve) => {
    execFile(file, args, { env: { ...process.env, TMS_PORT: '0', TMS_LOG_LEVEL: 'silent', ...env }, timeout: 60_000 }, (error, _stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stderr });
    });
  });
}

function assertOneLine(exit: Exit, pattern: RegExp): void {
  assert.is.not(exit.code, 0, exit.stderr);
  const lines = exit.stderr.trim().split('\n');
  assert.is(lines.length, 1, `one line:\n${exit.stderr}`);
  assert.match(lines[0]!, /^tms: /);
  assert.match(lines[0]!, pattern);
  assert.not.match(exit.stderr, /\n\s+at /, 'no stack trace');
}

const startup = suite<{ dir: string }>('startup failures: one line naming the cause and the fix, exit code not 0');
startup.before(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'tms-startup-'));
  await chmod(ctx.dir, 0o755);
});
startup.after(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
});

startup('a data folder this user cannot write', async ({ dir }) => {
  const locked = join(dir, 'read-only');
  await mkdir(locked, { mode: 0o555 });
  await chmod(locked, 0o555);
  // root may write anywhere: the command then runs as `nobody`, as a service account would.
  const asUser = process.getuid?.() === 0 ? 'nobody' : undefined;
  assertOneLine(await serve({ TMS_DATA_DIR: join(locked, 'data') }, asUser), /cannot write the data folder .*read-only\/data \(permission denied\); give this user write access/);
});

startup('a data folder locked by another running tms', async ({ dir }) => {
  const data = join(dir, 'locked');
  const first = await startServeProcess(data, { args: ['--log-level', 'warn'] });
  try {
    assertOneLine(await serve({ TMS_DATA_DIR: data }), /data folder .*locked is in use by another tms process .*stop that process, or choose another folder with TMS_DATA_DIR/);
  } finally {
    assert.is(await first.stop(), 0);
  }
});

startup('a damaged store', async ({ dir }) => {
  const data = join(dir, 'damaged');
  const db = new Level(data);
  await db.open();
  await db.put('a', 'b');
  await db.close();
  for (const name of await readdir(data)) if (name.startsWith('MANIFEST')) await writeFile(join(data, name), 'not a manifest');
  assertOneLine(await serve({ TMS_DATA_DIR: data }), /the store in .*damaged is damaged \(Corruption: .*\); restore it from a backup, or move the folder away/);
  // A file the store's records name is gone: LevelDB calls it an I/O error; it is damage all the same.
  await writeFile(join(data, 'CURRENT'), 'MANIFEST-000099\n');
  assertOneLine(await serve({ TMS_DATA_DIR: data }), /the store in .*damaged is damaged \(IO error: .*MANIFEST-000099: No such file or directory\); restore it from a backup, or move the folder away/);
});

startup('a data folder path through a file', async ({ dir }) => {
  await writeFile(join(dir, 'a-file'), 'x');
  assertOneLine(await serve({ TMS_DATA_DIR: join(dir, 'a-file', 'data') }), /cannot be created: part of that path is a file/);
});

startup('a port in use', async ({ dir }) => {
  const first = await startServeProcess(join(dir, 'port-owner'), { args: ['--log-level', 'warn'] });
  try {
    assertOneLine(await serve({ TMS_DATA_DIR: join(dir, 'second'), TMS_PORT: String(first.port) }), new RegExp(`port ${first.port} on 127\\.0\\.0\\.1 is already in use .*choose another port with TMS_PORT / --port`));
  } finally {
    assert.is(await first.stop(), 0);
  }
});

startup('a certificate that is not PEM, and one that does not exist', async ({ dir }) => {
  const junk = join(dir, 'junk.pem');
  await writeFile(junk, 'this is not a certificate');
  assertOneLine(await serve({ TMS_DATA_DIR: join(dir, 'tls'), TMS_TLS_CERT: junk, TMS_TLS_KEY: junk }), /TLS certificate or key is not usable .*give a PEM certificate and its private key with TMS_TLS_CERT and TMS_TLS_KEY/);
  assertOneLine(await serve({ TMS_DATA_DIR: join(dir, 'tls'), TMS_TLS_CERT: join(dir, 'missing.pem'), TMS_TLS_KEY: junk }), /cannot read TMS_TLS_CERT .*missing\.pem \(no such file\)/);
});

startup('invalid settings name the variable', async ({ dir }) => {
  assertOneLine(await serve({ TMS_DATA_DIR: join(dir, 'cfg'), TMS_PORT: 'eighty' }), /invalid setting: configuration port \(TMS_PORT\)/);
  assertOneLine(await serve({ TMS_DATA_DIR: join(dir, 'cfg'), TMS_RATE_LIMIT: '-5' }), /invalid setting: configuration rateLimit \(TMS_RATE_LIMIT\)/);
  assertOneLine(await serve({ TMS_DATA_DIR: join(dir, 'cfg'), TMS_MAX_PAGE_SIZE: '10' }), /invalid setting: .*TMS_DEFAULT_PAGE_SIZE.* above maxPageSize \(TMS_MAX_PAGE_SIZE\) 10/);
});

startup('accounts without the admin scope: a start says how to make one, and a new TMS_ADMIN_KEY is refused in one line', async ({ dir }) => {
  const data = join(dir, 'no-admin');
  const made = await new Promise<number>((resolve) =>
    execFile(process.execPath, [...RUN_TYPESCRIPT, join('src', 'cli', 'main.ts'), 'users', 'create', 'zed', '--scopes', 'read', '--password', 'zed-password-123', '--data-dir', data], (error) =>
      resolve(error ? 1 : 0),
    ),
  );
  assert.is(made, 0);
  const server = await startServeProcess(data, { args: ['--log-level', 'warn'] });
  try {
    assert.match(server.output(), /(^|\n)tms: no account has the admin scope, so none can manage the others; make one with: tms users create admin --scopes read,write,admin\n/);
  } finally {
    await server.stop();
  }
  assertOneLine(await serve({ TMS_DATA_DIR: data, TMS_ADMIN_KEY: 'a-new-admin-key-0123456789' }), /^tms: TMS_ADMIN_KEY is new, and there is no "admin" account with the admin scope to give it to; make one with/);
});

startup('a folder of other files is not made a store', async ({ dir }) => {
  const photos = join(dir, 'photos');
  await mkdir(photos);
  await writeFile(join(photos, 'holiday.jpg'), 'not a store');
  assertOneLine(await serve({ TMS_DATA_DIR: photos }), /^tms: .*photos holds other files and no tms store; give a new or empty folder, or a tms data folder, with --data-dir or TMS_DATA_DIR$/);
  assert.equal(await readdir(photos), ['holiday.jpg'], 'nothing written into it');
});

startup('a database nobody listens on', async ({ dir }) => {
  const exit = await serve({ TMS_DATA_DIR: join(dir, 'unused'), TMS_DATABASE_URL: 'postgres://tms:hunter2-secret@127.0.0.1:1/tms' });
  assertOneLine(exit, /cannot reach the database at tms@127\.0\.0\.1:1\/tms \(.*ECONNREFUSED.*\); check that PostgreSQL runs there and that TMS_DATABASE_URL \/ --database-url names it/);
  assert.not.match(exit.stderr, 'hunter2-secret', 'the password is never printed');
});

if (TEST_DATABASE_URL) {
  const adminUrl = TEST_DATABASE_URL;

  startup('a wrong password, a database that does not exist, and a user that may not create tables', async ({ dir }) => {
    const databaseUrl = await createDatabase(adminUrl);
    try {
      const wrong = new URL(databaseUrl);
      wrong.password = 'not-the-password';
      const refused = await serve({ TMS_DATA_DIR: join(dir, 'unused'), TMS_DATABASE_URL: wrong.toString() });
      assertOneLine(refused, /the database .* refused the login \(password authentication failed .*\); check the user and password in TMS_DATABASE_URL/);
      assert.not.match(refused.stderr, 'not-the-password');

      const missing = new URL(databaseUrl);
      missing.pathname = '/no_such_database';
      assertOneLine(await serve({ TMS_DATA_DIR: join(dir, 'unused'), TMS_DATABASE_URL: missing.toString() }), /database "no_such_database" does not exist at .*; create it, or name another/);

      await sqlOn(databaseUrl, "CREATE ROLE tms_reader LOGIN PASSWORD 'reader-pass'");
      const reader = new URL(databaseUrl);
      reader.username = 'tms_reader';
      reader.password = 'reader-pass';
      assertOneLine(
        await serve({ TMS_DATA_DIR: join(dir, 'unused'), TMS_DATABASE_URL: reader.toString() }),
        /the database user may not create tms's tables in tms_reader@.* \(permission denied for schema public\); grant it CREATE on schema public \(GRANT CREATE ON SCHEMA public TO <user>\), or run "tms migrate" as a user who may/,
      );
    } finally {
      await dropDatabase(adminUrl, databaseUrl);
      await sqlOn(adminUrl, 'DROP ROLE IF EXISTS tms_reader');
    }
  });

  startup("another program's table where tms keeps one, a tms table missing, SSL the server does not take", async ({ dir }) => {
    const clash = await createDatabase(adminUrl);
    const damaged = await createDatabase(adminUrl);
    try {
      await sqlOn(clash, 'CREATE TABLE account (id int)');
      assertOneLine(
        await serve({ TMS_DATA_DIR: join(dir, 'unused'), TMS_DATABASE_URL: clash }),
        /^tms: the database .* holds a table of another program where tms keeps one \(relation "account" already exists\); give tms a database of its own in TMS_DATABASE_URL/,
      );

      assert.is((await tms(['migrate', '--database-url', damaged])).code, 0);
      await sqlOn(damaged, 'DROP TABLE tms_clock');
      assertOneLine(
        await serve({ TMS_DATA_DIR: join(dir, 'unused'), TMS_DATABASE_URL: damaged }),
        /^tms: the database .* is missing one of tms's tables although its schema version says it has them \(relation "tms_clock" does not exist\): .*restore a backup into a new database/,
      );

      const ssl = new URL(damaged);
      ssl.searchParams.set('sslmode', 'require');
      const refused = await serve({ TMS_DATA_DIR: join(dir, 'unused'), TMS_DATABASE_URL: ssl.toString() });
      assert.is.not(refused.code, 0);
      // pg warns of its own about what sslmode=require means, before tms's line.
      const last = refused.stderr.trim().split('\n').at(-1)!;
      assert.match(last, /^tms: the database at .* does not take SSL connections \(The server does not support SSL connections\); leave sslmode out of TMS_DATABASE_URL/);
      assert.not.match(refused.stderr, /\n\s+at /, 'no stack trace');
    } finally {
      await dropDatabase(adminUrl, clash);
      await dropDatabase(adminUrl, damaged);
    }
  });
}

startup.run();
