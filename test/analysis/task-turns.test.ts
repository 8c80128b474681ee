// Turns for the analysis workers: one task per worker, the rest waiting in the order they came; a task whose
// request ended while it waited is dropped at its turn (or when the queue is full) and never runs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TaskTurns, type Turn } from '../../src/analysis/task-turns.ts';
import { ApiError } from '../../src/domain/errors.ts';

const full = () => new ApiError('resource_exhausted', 'full');
const settled = async <T>(promise: Promise<T>) => promise.then((value) => ({ value }), (error: unknown) => ({ error }));
const tick = () => new Promise((resolve) => setImmediate(resolve));

test('a free worker gives a turn at once; with none free, tasks start in the order they came', async () => {
  const turns = new TaskTurns(1, 10, full);
  const first = turns.free();
  assert.ok(first, 'a turn at once');
  assert.is(turns.free(), undefined, 'the one worker is taken');
  const started: number[] = [];
  const waiting = [1, 2, 3].map((n) => turns.wait(undefined).then((turn) => (started.push(n), turn)));
  assert.is(turns.waitingCount, 3);
  first.done();
  first.done();
  await tick();
  assert.equal(started, [1], 'one finished task lets one waiting task start, however often done is called');
  (await waiting[0]!).done();
  await tick();
  (await waiting[1]!).done();
  await tick();
  assert.equal(started, [1, 2, 3]);
  (await waiting[2]!).done();
  assert.ok(turns.free(), 'every worker free again');
});

test('a task whose request ended while it waited is refused with canceled at its turn; the next one starts', async () => {
  const turns = new TaskTurns(1, 10, full);
  const running = turns.free()!;
  const request = { ended: false };
  const abandoned = settled(turns.wait(request));
  const next = turns.wait({ ended: false });
  request.ended = true;
  running.done();
  const outcome = await abandoned;
  assert.ok('error' in outcome);
  assert.instance(outcome.error, ApiError);
  assert.is((outcome.error as ApiError).code, 'canceled');
  assert.match((outcome.error as ApiError).message, /its request ended before a worker was free for it; it did not run/);
  const turn: Turn = await next;
  assert.is(turns.waitingCount, 0);
  turn.done();
});

test('a full queue first drops the tasks whose requests ended, and refuses only when it is still full', async () => {
  const turns = new TaskTurns(1, 2, full);
  const running = turns.free()!;
  const ended = { ended: false };
  const gone = settled(turns.wait(ended));
  const kept = turns.wait({ ended: false });
  const refused = await settled(turns.wait({ ended: false }));
  assert.ok('error' in refused && (refused.error as ApiError).code === 'resource_exhausted', 'two waiting: full');
  ended.ended = true;
  const admitted = turns.wait({ ended: false });
  assert.is(turns.waitingCount, 2, 'the ended one made room');
  const dropped = await gone;
  assert.ok('error' in dropped && (dropped.error as ApiError).code === 'canceled');
  running.done();
  (await kept).done();
  (await admitted).done();
  assert.is(turns.waitingCount, 0);
});

test.run();
