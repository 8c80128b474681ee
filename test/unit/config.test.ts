import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { availableParallelism } from 'node:os';
import { loadConfig } from '../../src/config.ts';

test('defaults: port 8080 on 127.0.0.1, ./data, seeded catalogue', () => {
  const config = loadConfig({}, {});
  assert.is(config.port, 8080);
  assert.is(config.host, '127.0.0.1');
  assert.is(config.dataDir, './data');
  assert.is(config.seedCatalogue, true);
  assert.is(config.bodyLimitBytes, 1024 * 1024);
});

test('environment variables set every field; flags win over them', () => {
  const env = { TMS_PORT: '9090', TMS_HOST: '0.0.0.0', TMS_DATA_DIR: '/srv/tms', TMS_RATE_LIMIT: '7', TMS_BODY_LIMIT_BYTES: '2048' };
  const fromEnv = loadConfig({}, env);
  assert.equal([fromEnv.port, fromEnv.host, fromEnv.dataDir, fromEnv.rateLimit, fromEnv.bodyLimitBytes], [9090, '0.0.0.0', '/srv/tms', 7, 2048]);
  const withFlags = loadConfig({ port: '7070', dataDir: './other' }, env);
  assert.equal([withFlags.port, withFlags.host, withFlags.dataDir], [7070, '0.0.0.0', './other']);
});

test('TMS_SEED_CATALOGUE reads false as false (not as a non-empty string)', () => {
  for (const off of ['false', '0', 'no', 'off']) assert.is(loadConfig({}, { TMS_SEED_CATALOGUE: off }).seedCatalogue, false, off);
  for (const on of ['true', '1', 'yes', 'on']) assert.is(loadConfig({}, { TMS_SEED_CATALOGUE: on }).seedCatalogue, true, on);
  assert.is(loadConfig({ seedCatalogue: false }, { TMS_SEED_CATALOGUE: 'true' }).seedCatalogue, false, 'the --no-seed flag wins');
});

test('a bad value names the setting and its variable', () => {
  assert.throws(() => loadConfig({}, { TMS_PORT: 'eighty' }), /configuration port \(TMS_PORT\)/);
  assert.throws(() => loadConfig({}, { TMS_PORT: '70000' }), /TMS_PORT/);
  assert.throws(() => loadConfig({}, { TMS_SEED_CATALOGUE: 'maybe' }), /configuration seedCatalogue \(TMS_SEED_CATALOGUE\): must be true or false/);
  assert.throws(
    () => loadConfig({}, { TMS_MAX_PAGE_SIZE: '20' }),
    /configuration defaultPageSize \(TMS_DEFAULT_PAGE_SIZE, its default\): 50 is above maxPageSize \(TMS_MAX_PAGE_SIZE\) 20/,
  );
  assert.throws(
    () => loadConfig({ defaultPageSize: '2000' }, {}),
    /^configuration defaultPageSize \(--default-page-size\): 2000 is above maxPageSize \(TMS_MAX_PAGE_SIZE, its default\) 1000/,
  );
  assert.is(loadConfig({}, { TMS_MAX_PAGE_SIZE: '20', TMS_DEFAULT_PAGE_SIZE: '20' }).defaultPageSize, 20);
  assert.throws(() => loadConfig({}, { TMS_ADMIN_KEY: 'short' }), /at least 16 characters/);
  assert.throws(() => loadConfig({}, { TMS_LOG_LEVEL: 'loud' }), /TMS_LOG_LEVEL/);
  assert.throws(
    () => loadConfig({}, { TMS_TRUSTED_PROXIES: '10.0.0.0/8,lb.internal' }),
    /^configuration trustedProxies \(TMS_TRUSTED_PROXIES\): "lb.internal" is not an IP address or a subnet \(address\/prefix\), got "10.0.0.0\/8,lb.internal"$/,
  );
});

test('a number setting is decimal digits: blanks, hex, exponents and fractions of whole numbers are refused, with the value', () => {
  for (const value of [' ', '0x1F90', '8e3', '80.5', '-1']) {
    assert.throws(() => loadConfig({}, { TMS_PORT: value }), (error: Error) => {
      assert.match(error.message, /^configuration port \(TMS_PORT\): must be a whole number/);
      assert.ok(error.message.endsWith(`, got ${JSON.stringify(value)}`), error.message);
      return true;
    });
  }
  assert.is(loadConfig({}, { TMS_PORT: ' 9090 ' }).port, 9090);
  assert.is(loadConfig({ port: 9091 }, {}).port, 9091);
  assert.is(loadConfig({}, { TMS_RATE_LIMIT: '0.5' }).rateLimit, 0.5);
  assert.throws(() => loadConfig({}, { TMS_RATE_LIMIT: 'fast' }), /configuration rateLimit \(TMS_RATE_LIMIT\): must be a number in decimal digits, got "fast"/);
});

test('a number out of its range is refused with the range, not as a non-number', () => {
  const cases: [Record<string, string>, string][] = [
    [{ TMS_PORT: '70000' }, 'configuration port (TMS_PORT): must be 0 to 65535, got "70000"'],
    [{ TMS_SESSION_TTL_MS: '0' }, 'configuration sessionTtlMs (TMS_SESSION_TTL_MS): must be 1 or more, got "0"'],
    [{ TMS_MAX_PAGE_SIZE: '0' }, 'configuration maxPageSize (TMS_MAX_PAGE_SIZE): must be 1 or more, got "0"'],
    [{ TMS_ANALYSIS_THREADS: '0' }, 'configuration analysisThreads (TMS_ANALYSIS_THREADS): must be 1 or more, got "0"'],
  ];
  for (const [env, message] of cases) assert.throws(() => loadConfig({}, env), (error: Error) => error.message === message || assert.unreachable(error.message));
  assert.throws(() => loadConfig({ rateLimit: -3 }, {}), /configuration rateLimit \(--rate-limit\): must be 0 or more/);
  assert.throws(() => loadConfig({ bodyLimitBytes: -1 }, {}), /configuration bodyLimitBytes \(--body-limit-bytes\): must be 1 or more/);
});

test('the admin key: at least 16 characters and no spaces, and an error never repeats it', () => {
  for (const key of ['short', 'sixteen chars with spaces']) {
    assert.throws(() => loadConfig({}, { TMS_ADMIN_KEY: key }), (error: Error) => {
      assert.match(error.message, /^configuration adminKey \(TMS_ADMIN_KEY\): must (be at least 16 characters|not contain spaces)$/);
      assert.not.ok(error.message.includes(key));
      return true;
    });
  }
  assert.throws(() => loadConfig({}, { TMS_DATABASE_URL: 'mysql://user:secret@host/db' }), (error: Error) => !error.message.includes('secret'));
});

test('a value given by flag is named by its flag, one from the environment by its variable', () => {
  assert.throws(() => loadConfig({ port: '70000' }, { TMS_PORT: '8080' }), /^configuration port \(--port\): must be 0 to 65535, got "70000"$/);
  assert.throws(() => loadConfig({ requestTimeoutMs: 'soon' }, {}), /^configuration requestTimeoutMs \(--request-timeout-ms\): /);
  assert.throws(() => loadConfig({ tlsCert: 'c.pem' }, {}), /^configuration tlsKey \(TMS_TLS_KEY\): required with --tls-cert; set both/);
  assert.throws(
    () => loadConfig({ maxPageSize: '20' }, { TMS_DEFAULT_PAGE_SIZE: '30' }),
    /^configuration defaultPageSize \(TMS_DEFAULT_PAGE_SIZE\): 30 is above maxPageSize \(--max-page-size\) 20/,
  );
});

test('the store: --data-dir wins over TMS_DATABASE_URL, both flags are refused, TMS_DATABASE_URL wins over TMS_DATA_DIR', () => {
  const url = 'postgres://tms:secret@db.internal:5432/tms';
  const flagFolder = loadConfig({ dataDir: '/srv/tms' }, { TMS_DATABASE_URL: url });
  assert.equal([flagFolder.dataDir, flagFolder.databaseUrl], ['/srv/tms', undefined], 'a flag names the store over a variable');
  assert.is(loadConfig({ databaseUrl: url }, { TMS_DATA_DIR: '/srv/tms' }).databaseUrl, url);
  assert.is(loadConfig({}, { TMS_DATA_DIR: '/srv/tms', TMS_DATABASE_URL: url }).databaseUrl, url);
  assert.throws(() => loadConfig({ dataDir: '/srv/tms', databaseUrl: url }, {}), /^configuration: give either --data-dir \(a LevelDB folder\) or --database-url \(PostgreSQL\), not both$/);
});

test('a flag given empty is refused, not taken for its default', () => {
  assert.throws(() => loadConfig({ port: '' }, {}), /^configuration port \(--port\): is empty; give a value, or leave the flag out for the default$/);
  assert.throws(() => loadConfig({ dataDir: '' }, {}), /^configuration dataDir \(--data-dir\): is empty/);
  assert.is(loadConfig({}, { TMS_PORT: '' }).port, 8080, 'an empty variable is one not set');
});

test('analysis threads: at most four per core, so a slipped digit cannot start hundreds', () => {
  const most = 4 * availableParallelism();
  assert.is(loadConfig({ analysisThreads: String(most) }, {}).analysisThreads, most);
  assert.throws(() => loadConfig({ analysisThreads: String(most + 1) }, {}), new RegExp(`^configuration analysisThreads \\(--analysis-threads\\): must be 1 to ${most} \\(four per core here\\), got "${most + 1}"$`));
});

test('TLS takes both a certificate and a key: one alone is refused, naming the other', () => {
  assert.throws(() => loadConfig({}, { TMS_TLS_CERT: '/etc/tms/cert.pem' }), /^configuration tlsKey \(TMS_TLS_KEY\): required with TMS_TLS_CERT; set both for TLS, or neither$/);
  assert.throws(() => loadConfig({}, { TMS_TLS_KEY: '/etc/tms/key.pem' }), /^configuration tlsCert \(TMS_TLS_CERT\): required with TMS_TLS_KEY/);
  assert.is(loadConfig({}, { TMS_TLS_CERT: 'c.pem', TMS_TLS_KEY: 'k.pem' }).tlsKey, 'k.pem');
});

test.run();
