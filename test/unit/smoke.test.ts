import { test } from 'uvu';
import * as assert from 'uvu/assert';

test('the test runner counts assertions', () => {
  assert.is(1 + 1, 2);
});

test.run();
