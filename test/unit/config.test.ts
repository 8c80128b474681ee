import { test } from 'uvu';
import * as assert from 'uvu/assert';
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
    /configuration defaultPageSize \(TMS_DEFAULT_PAGE_SIZE\): 50 is above maxPageSize \(TMS_MAX_PAGE_SIZE\) 20/,
  );
  assert.is(loadConfig({}, { TMS_MAX_PAGE_SIZE: '20', TMS_DEFAULT_PAGE_SIZE: '20' }).defaultPageSize, 20);
  assert.throws(() => loadConfig({}, { TMS_ADMIN_KEY: 'short' }), /at least 16 characters/);
  assert.throws(() => loadConfig({}, { TMS_LOG_LEVEL: 'loud' }), /TMS_LOG_LEVEL/);
});

test.run();
