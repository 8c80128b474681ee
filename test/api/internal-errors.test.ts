import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { z } from 'zod';
import { defineOperation } from '../../src/api/operation.ts';
import { Metrics } from '../../src/observability/metrics.ts';
import { ClientAddresses } from '../../src/server/client-address.ts';
import { createHttpHandler } from '../../src/server/http-handler.ts';
import { createOnePortServer } from '../../src/server/one-port.ts';
import { RestRouter } from '../../src/server/rest/router.ts';
import type { Gate } from '../../src/server/gate.ts';
import { call } from '../support/server.ts';

// The request path with an operation that has a bug: what the client sees and what the log keeps.
test('an unexpected error answers "internal" without its text, and the log line carries the stack', async () => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const everyoneIn: Gate = { admit: () => ({ account: 'tester', scopes: new Set(['read']), credentialId: 'key-1', kind: 'key' }) };
  const handler = createHttpHandler({
    restRouter: new RestRouter([{ method: 'GET', path: '/v1/broken', rpc: 'tms.v1.Test.Broken', summary: 'has a bug' }]),
    operations: new Map([
      [
        'tms.v1.Test.Broken',
        defineOperation(z.strictObject({}), async () => {
          throw new TypeError('secret internals: cannot read properties of undefined');
        }),
      ],
    ]),
    gate: everyoneIn,
    bodyLimitBytes: 1024,
    requestTimeoutMs: 1000,
    rpcHandler: (_req, res) => res.end(),
    unaryRpc: () => false,
    rpcRoutes: new Map(),
    plainRoutes: new Map(),
    prefixRoutes: [],
    clientAddresses: new ClientAddresses(),
    logger: pino({ level: 'info' }, sink),
    metrics: new Metrics(),
  });
  const server = createOnePortServer(handler);
  const { port } = await server.listen(0, '127.0.0.1');
  try {
    const res = await call({ port }, 'GET', '/v1/broken', { key: null, headers: { 'x-request-id': 'req-42' } });
    assert.is(res.status, 500);
    assert.is(res.json.code, 'internal');
    assert.is(res.json.message, 'internal error (see the server log for this request id)');
    assert.not.match(res.text, /secret internals/);
    assert.is(res.headers['x-request-id'], 'req-42');

    const line = lines.find((entry) => entry['req_id'] === 'req-42');
    assert.ok(line, 'the request was logged');
    assert.is(line!['level'], 50, 'at error level');
    assert.is(line!['code'], 'internal');
    const err = line!['err'] as { message: string; stack: string; type: string };
    assert.is(err.type, 'TypeError');
    assert.match(err.message, /secret internals/);
    assert.match(err.stack, /internal-errors\.test\.ts/);
  } finally {
    await server.close(100);
  }
});

test.run();
