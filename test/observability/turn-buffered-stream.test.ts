import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { TurnBufferedStream } from '../../src/observability/turn-buffered-stream.ts';

function recorder() {
  const writes: string[] = [];
  let flushes = 0;
  return {
    writes,
    flushes: () => flushes,
    out: {
      write: (data: string) => writes.push(data) > 0,
      flushSync: () => void flushes++,
    },
  };
}

test('the lines of one turn are written together at its end, in order', async () => {
  const { writes, out } = recorder();
  const stream = new TurnBufferedStream(out);
  stream.write('{"a":1}\n');
  stream.write('{"a":2}\n');
  assert.equal(writes, [], 'nothing is written during the turn');
  await nextTurn();
  assert.equal(writes, ['{"a":1}\n{"a":2}\n']);
  stream.write('{"a":3}\n');
  await nextTurn();
  assert.equal(writes, ['{"a":1}\n{"a":2}\n', '{"a":3}\n'], 'the next turn writes its own lines');
});

test('a turn that logs more than 64 Ki characters writes them at once instead of holding them', () => {
  const { writes, out } = recorder();
  const stream = new TurnBufferedStream(out);
  const line = `${'x'.repeat(1023)}\n`;
  for (let i = 0; i < 64; i++) stream.write(line);
  assert.is(writes.length, 1);
  assert.is(writes[0]!.length, 64 * 1024);
});

test('flushSync and flush write what waits, and the writer flushes its own buffer', async () => {
  const { writes, out, flushes } = recorder();
  const stream = new TurnBufferedStream(out);
  stream.write('one\n');
  stream.flushSync();
  assert.equal(writes, ['one\n']);
  assert.is(flushes(), 1);
  stream.write('two\n');
  let called = false;
  stream.flush((error) => {
    assert.is(error, undefined);
    called = true;
  });
  assert.ok(called);
  assert.equal(writes, ['one\n', 'two\n']);
  await nextTurn();
  assert.equal(writes, ['one\n', 'two\n'], 'the turn has nothing left to write');
});

test.run();
