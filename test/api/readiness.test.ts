// /readyz says whether a node should get traffic, with the reasons when not: while it starts (the port is
// open before the store), when the analysis pool is down, and from the first moment of a shutdown (with a
// drain time, while it still serves). /healthz is liveness only. gRPC health follows the same checks.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { startApp } from '../../src/app.ts';
import { AnalysisPool } from '../../src/analysis/pool.ts';
import { HealthState } from '../../src/server/grpc-infra/health-state.ts';
import { Readiness } from '../../src/server/readiness.ts';
import { ADMIN_KEY, call, startTestServer } from '../support/server.ts';

const readiness = suite('readiness: /readyz, /healthz and gRPC health in every state');

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

readiness('starting: the port answers at once, /readyz 503 with the step, API calls 503 unavailable with Retry-After, /healthz 200; then ready', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tms-ready-'));
  const port = await freePort();
  const config = loadConfig({ port, adminKey: ADMIN_KEY, logLevel: 'silent', dataDir }, {});
  const starting = startApp(config, createLogger('silent'));
  const server = { port };
  try {
    const seen: { readyz: number; reasons?: string[] }[] = [];
    let apiWhileStarting: Awaited<ReturnType<typeof call>> | undefined;
    let healthWhileStarting: number | undefined;
    // The first answers come while the store opens and the catalogue loads.
    for (let attempt = 0; attempt < 2000; attempt++) {
      const ready = await call(server, 'GET', '/readyz', { key: null }).catch(() => undefined);
      if (!ready) {
        await new Promise((resolve) => setTimeout(resolve, 2));
        continue;
      }
      seen.push({ readyz: ready.status, reasons: ready.json.reasons });
      if (ready.status === 200) break;
      apiWhileStarting ??= await call(server, 'GET', '/v1/timelines');
      healthWhileStarting ??= (await call(server, 'GET', '/healthz', { key: null })).status;
    }
    const app = await starting;
    assert.ok(seen.length > 1 && seen[0]!.readyz === 503, `answers while starting: ${JSON.stringify(seen)}`);
    assert.match(seen[0]!.reasons!.join(), /^starting: (opening the store|loading the catalogue|opening accounts)$/);
    assert.is(apiWhileStarting?.status, 503);
    assert.is(apiWhileStarting?.json.code, 'unavailable');
    assert.match(apiWhileStarting?.json.message, /not ready \(starting: /);
    assert.is(apiWhileStarting?.headers['retry-after'], '1');
    assert.match(String(apiWhileStarting?.headers['x-request-id']), /^[\w-]{36}$/, 'a request id, as on every other answer');
    assert.is(healthWhileStarting, 200);
    const ready = await call(app, 'GET', '/readyz', { key: null });
    assert.is(ready.status, 200);
    assert.equal(ready.json, { status: 'SERVING' });
    assert.is((await call(app, 'GET', '/v1/timelines')).status, 200);
    await app.close();
  } finally {
    await starting.then((app) => app.close()).catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
  }
});

readiness('shutting down: NOT_SERVING from the first moment while the drain time still serves; /healthz stays 200', async () => {
  const server = await startTestServer({ shutdownDrainMs: 1_500 });
  const closing = server.app.close();
  const ready = await call(server, 'GET', '/readyz', { key: null });
  assert.is(ready.status, 503);
  assert.equal(ready.json, { status: 'NOT_SERVING', reasons: ['shutting down'] });
  assert.is((await call(server, 'GET', '/healthz', { key: null })).status, 200, 'liveness is not readiness');
  assert.is((await call(server, 'GET', '/v1/timelines')).status, 200, 'requests still arriving are served while draining');
  const metrics = await call(server, 'GET', '/metrics', { key: null });
  assert.match(metrics.text, /tms_requests_total\{route="\/readyz",protocol="http",code="unavailable"\} 1/, 'a 503 is not counted as ok');
  await closing;
  assert.ok(await call(server, 'GET', '/readyz', { key: null }).then(() => false, () => true), 'then the port closes');
  server.stop = async () => undefined;
  await rm(server.dataDir, { recursive: true, force: true });
});

readiness('the checks: a pool that is down, a shutdown, and gRPC health statuses following them', async () => {
  const health = new HealthState();
  const state = new Readiness(health, ['tms.v1.EventService'], 'opening the store');
  assert.equal(state.reasons(), ['starting: opening the store']);
  assert.is(health.getStatus(''), 'NOT_SERVING');
  assert.is(health.getStatus('tms.v1.EventService'), 'NOT_SERVING');
  const pool = new AnalysisPool({ threads: 1 });
  state.addCheck(() => pool.problem());
  state.starting(undefined);
  assert.equal(state.reasons(), []);
  assert.is(health.getStatus(''), 'SERVING');
  assert.is(health.getStatus('tms.v1.EventService'), 'SERVING');
  await pool.close();
  assert.equal(state.reasons(), ['the analysis pool is shut down']);
  state.watch(20);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.is(health.getStatus(''), 'NOT_SERVING', 'gRPC health follows within the watch interval');
  state.drain();
  assert.equal(state.reasons(), ['shutting down']);
  assert.is(health.getStatus('tms.v1.EventService'), 'NOT_SERVING');
});

readiness.run();
