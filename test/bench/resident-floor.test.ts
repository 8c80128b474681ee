// The resident memory the soak compares across a life: a window's lower quartile of RSS, which a login's
// transient 32 MiB does not move, where a median would jump between its two levels.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { median, residentFloor } from '../../bench/soak/figures.ts';

/** 60 one-second RSS samples at `base` MiB, `loggingIn` of them with a password hash's 32 MiB mapped. */
const windowOf = (base: number, loggingIn: number) => Array.from({ length: 60 }, (_, s) => base + (s < loggingIn ? 32 : 0));

test('a login running in 40 % or 60 % of the seconds leaves the floor where it is; the median jumps by 32 MiB', () => {
  const warm = windowOf(414, 24);
  const end = windowOf(414, 36);
  assert.is(residentFloor(warm), 414);
  assert.is(residentFloor(end), 414);
  assert.is(median(end) - median(warm), 32);
});

test('memory that stays shows in the floor as it does in the median', () => {
  assert.is(residentFloor(windowOf(460, 24)) - residentFloor(windowOf(414, 24)), 46);
});

test.run();
