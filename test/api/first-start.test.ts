import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { call } from '../support/server.ts';
import { startServeProcess, type ServeProcess } from '../support/serve-process.ts';

/** A port nothing listens on right now (on 127.0.0.2, where no other test listens). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.2', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** The real command `npm start` runs, on a data folder of our own, with no admin key given. */
async function serve(dataDir: string): Promise<ServeProcess & { banner: string }> {
  const server = await startServeProcess(dataDir, { args: ['--log-level', 'info'], env: { TMS_ADMIN_KEY: '' } });
  return { ...server, banner: server.output() };
}

test('first start prints the admin credentials once; they work; a restart does not print them again', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tms-first-start-'));
  try {
    const first = await serve(dataDir);
    const key = /API key:\s+(\S+)/.exec(first.banner)?.[1];
    const username = /username:\s+(\S+)/.exec(first.banner)?.[1];
    const password = /password:\s+(\S+)/.exec(first.banner)?.[1];
    assert.ok(key && username && password, `credentials printed:\n${first.banner}`);
    assert.match(first.banner, /shown once/);
    assert.match(first.banner, new RegExp(`API description http://127\\.0\\.0\\.1:${first.port}/openapi\\.json`));
    assert.match(first.banner, new RegExp(`try-it console http://127\\.0\\.0\\.1:${first.port}/console\\n`));
    const page = await call(first, 'GET', '/console', { key: null });
    assert.is(page.status, 200, 'the console the banner names answers');
    assert.match(page.text, /<script type="module" src="\/console\/assets\/main-\w+\.js">/);

    const timelines = await call(first, 'GET', '/v1/timelines', { key });
    assert.is(timelines.status, 200, timelines.text);
    const seeded = await call(first, 'GET', '/v1/search-events', { key, body: { location: 'Paris', page_size: 1 } });
    assert.is(seeded.json.events.length, 1, 'the catalogue is loaded');
    const login = await call(first, 'POST', '/v1/login', { key: null, body: { username, password } });
    assert.is(login.status, 200, login.text);
    // stdout is the JSON log, which collectors parse and keep: the banner and its secrets are on stderr.
    const logLines = first.stdout().split('\n').filter((line) => line !== '');
    assert.ok(logLines.some((line) => line.includes('"msg":"request"')), 'the requests before the last are logged');
    assert.ok(logLines.every((line) => line.startsWith('{') && JSON.parse(line)), `stdout holds JSON lines only:\n${first.stdout()}`);
    assert.not.ok(first.stdout().includes(password) || first.stdout().includes(key), 'no secret in the log');
    assert.is(await first.stop(), 0);

    const again = await serve(dataDir);
    assert.not.match(again.banner, /API key:|password:/);
    assert.is((await call(again, 'GET', '/v1/timelines', { key })).status, 200, 'the key still works');
    assert.is(await again.stop(), 0);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
    await rm(`${dataDir}.stdout`, { force: true });
  }
});

test('TMS_PORT, TMS_HOST and TMS_DATA_DIR configure the real command; TMS_ADMIN_KEY sets the admin key', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tms-env-'));
  const port = await freePort();
  const key = 'tms_env_admin_key_0123456789abcdef';
  const env = { TMS_PORT: String(port), TMS_HOST: '127.0.0.2', TMS_DATA_DIR: dataDir, TMS_ADMIN_KEY: key, TMS_SEED_CATALOGUE: 'false' };
  const server = { ...(await startServeProcess(dataDir, { flags: false, env })), host: '127.0.0.2' };
  try {
    assert.is(server.port, port, 'listens on TMS_PORT');
    assert.match(server.output(), new RegExp(`listening on http://127\\.0\\.0\\.2:${port}`), 'listens on TMS_HOST');
    assert.match(server.output(), /the one you set with TMS_ADMIN_KEY/);
    assert.is((await call(server, 'GET', '/v1/timelines', { key })).status, 200, 'TMS_ADMIN_KEY works');
    const search = await call(server, 'GET', '/v1/search-events', { key, body: { location: 'Paris' } });
    assert.equal(search.json.events, [], 'TMS_SEED_CATALOGUE=false: nothing loaded');
    assert.ok(existsSync(join(dataDir, 'CURRENT')), 'the LevelDB store is in TMS_DATA_DIR');
  } finally {
    const code = await server.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(`${dataDir}.stdout`, { force: true });
    assert.is(code, 0);
  }
});

test.run();
