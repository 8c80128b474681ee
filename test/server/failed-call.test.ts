import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { failedCall } from '../../src/server/invoke.ts';
import type { RequestState } from '../../src/server/request-state.ts';
import { ApiError } from '../../src/domain/errors.ts';
import { unavailable } from '../../src/store/postgres/unavailable.ts';

const fresh = (): RequestState => ({ requestId: 'r', client: '127.0.0.1', protocol: 'rest', route: 'x', code: 'ok' });

test('an unexpected error answers internal and keeps its cause, stack and all, for the log line', () => {
  const state = fresh();
  const thrown = new TypeError('x is undefined');
  const error = failedCall(state, thrown);
  assert.is(error.code, 'internal');
  assert.is(state.code, 'internal');
  assert.is(state.failure, thrown);
});

test('an unreachable database answers unavailable and keeps its reason without a stack: an outage repeats it per request', () => {
  const state = fresh();
  const error = failedCall(state, unavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })));
  assert.is(error.code, 'unavailable');
  assert.is(state.code, 'unavailable');
  assert.equal(state.outage, { type: 'StoreUnavailableError', message: 'the database is unavailable (connect ECONNREFUSED 127.0.0.1:5432)' });
  assert.is(state.failure, undefined, 'not a fault of the server: no error line');
});

test('a refusal is its own answer and records no failure', () => {
  const state = fresh();
  const refusal = new ApiError('not_found', 'timeline "t" not found');
  assert.is(failedCall(state, refusal), refusal);
  assert.is(state.code, 'not_found');
  assert.is(state.failure, undefined);
  assert.is(state.outage, undefined);
});

test.run();
