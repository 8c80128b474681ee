// What an ApiError carries: a stack trace for the server's own faults only, since a refusal's is never read.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../src/domain/errors.ts';

const frames = (error: Error) => (error.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at ')).length;

test('a refusal carries no stack frames; a server fault does, and other errors keep theirs', () => {
  const refusals = [new ApiError('invalid_argument', 'page_size: must be positive'), new ApiError('unauthenticated', 'invalid key'), new ApiError('resource_exhausted', 'rate')];
  for (const refusal of refusals) {
    assert.is(frames(refusal), 0, refusal.code);
    assert.is(refusal.stack, `ApiError: ${refusal.message}`);
  }
  assert.ok(frames(new ApiError('internal', 'store failed')) > 0, 'internal');
  assert.ok(frames(new ApiError('data_loss', 'snapshot incomplete')) > 0, 'data_loss');
  assert.ok(frames(new Error('plain')) > 0, 'the stack trace limit is back after a refusal');
});

test.run();
