// The event rules every store backend applies: what a manipulation, a revert and an insertion write.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../src/domain/errors.ts';
import { newEventRecord, planManipulation, planRevert } from '../../src/domain/event-rules.ts';
import type { EventRecord } from '../../src/store/types.ts';
import { parseInstant } from '../../src/time/index.ts';

const original: EventRecord = {
  event_id: 'moon-landing',
  timeline_id: 'primary',
  description: 'Apollo 11 lands',
  time: '1969-07-20T20:17:40Z',
  location: 'Sea of Tranquility',
  causes: ['apollo-program'],
  status: 'original',
  kind: 'arrival',
  traveller: 'tr_1',
};

function refusal(work: () => unknown): ApiError {
  try {
    work();
  } catch (error) {
    assert.instance(error, ApiError);
    return error as ApiError;
  }
  throw new Error('expected a refusal');
}

test('a manipulation supersedes the original on the branch and carries its place, causes, kind and traveller', () => {
  const { superseded, created } = planManipulation('tl_a', original, { description: 'Lands a day late', changes: [] }, 'evt_new', 'ada');
  assert.equal(superseded, { ...original, timeline_id: 'tl_a', superseded_by: 'evt_new' });
  assert.is(created.event_id, 'evt_new');
  assert.is(created.timeline_id, 'tl_a');
  assert.is(created.supersedes, 'moon-landing');
  assert.is(created.status, 'manipulated');
  assert.is(created.time, original.time);
  assert.equal([created.location, created.causes, created.kind, created.traveller, created.created_by], ['Sea of Tranquility', ['apollo-program'], 'arrival', 'tr_1', 'ada']);
  assert.ok(created.causes !== original.causes, 'causes are copied, not shared');
});

test('the last reschedule sets the time; prevent or cancel, in any case and spacing, cancels the event', () => {
  const changes = [
    { action: 'reschedule', time: parseInstant('1969-07-21T00:00:00Z') },
    { action: 'delay', time: parseInstant('1969-07-22T00:00:00Z') },
    { action: ' Reschedule ', time: parseInstant('1969-07-23T00:00:00Z') },
  ];
  const moved = planManipulation('tl_a', original, { description: 'moved', changes }, 'evt_m', 'ada').created;
  assert.is(moved.time, '1969-07-23T00:00:00Z');
  assert.is(moved.status, 'manipulated');
  assert.equal(moved.changes?.map((c) => c.action), ['reschedule', 'delay', ' Reschedule ']);
  const prevented = planManipulation('tl_a', original, { description: 'no', changes: [{ action: ' PREVENT', time: parseInstant('1969-07-20T00:00:00Z') }] }, 'evt_p', 'ada');
  assert.is(prevented.created.status, 'cancelled');
});

test('only a standing event can be manipulated', () => {
  const superseded = refusal(() => planManipulation('tl_a', { ...original, superseded_by: 'evt_x' }, { description: '', changes: [] }, 'evt_n', 'ada'));
  assert.is(superseded.code, 'aborted');
  assert.match(superseded.message, 'already superseded by "evt_x"');
  for (const status of ['reverted', 'cancelled'] as const) {
    const error = refusal(() => planManipulation('tl_a', { ...original, status }, { description: '', changes: [] }, 'evt_n', 'ada'));
    assert.is(error.code, 'failed_precondition');
    assert.match(error.message, `is ${status} on timeline "tl_a"`);
  }
});

test('a revert marks the manipulation reverted and stands the original up again; anything else is refused', () => {
  const { superseded, created } = planManipulation('tl_a', original, { description: 'x', changes: [] }, 'evt_new', 'ada');
  const { reverted, restored } = planRevert('tl_a', created, superseded, 'bob');
  assert.equal([reverted.status, reverted.reverted_by, typeof reverted.reverted_at], ['reverted', 'bob', 'string']);
  assert.equal(restored, { ...original, timeline_id: 'tl_a' });
  assert.not.ok('superseded_by' in restored);

  assert.is(refusal(() => planRevert('tl_a', original, undefined, 'bob')).code, 'failed_precondition');
  assert.match(refusal(() => planRevert('tl_a', reverted, superseded, 'bob')).message, 'already reverted');
  assert.match(refusal(() => planRevert('tl_a', { ...created, superseded_by: 'evt_later' }, superseded, 'bob')).message, 'revert that event first');
  assert.match(refusal(() => planRevert('tl_a', created, original, 'bob')).message, 'nothing to restore');
  assert.match(refusal(() => planRevert('tl_a', created, undefined, 'bob')).message, 'nothing to restore');
});

test('an inserted event stands as original, at its exact time, made by its actor', () => {
  const record = newEventRecord('tl_a', 'evt_i', { description: 'arrives', time: parseInstant('-0044-03-15T12:00:00.000000001Z'), location: 'Rome', causes: [], kind: 'arrival', traveller: 'tr_9' }, 'ada');
  assert.equal(
    { ...record, created_at: '' },
    { event_id: 'evt_i', timeline_id: 'tl_a', description: 'arrives', time: '-000044-03-15T12:00:00.000000001Z', location: 'Rome', causes: [], status: 'original', kind: 'arrival', traveller: 'tr_9', created_by: 'ada', created_at: '' },
  );
});

test.run();
