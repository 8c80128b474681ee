import type { Duration } from './duration.ts';
import { addDuration, parseDuration } from './duration.ts';
import { quoteInput, TimeFormatError } from './errors.ts';
import type { Instant } from './instant.ts';
import { compareInstants, formatInstant, parseInstant } from './instant.ts';

/** A span of time; both ends are inclusive and start ≤ end. */
export interface Interval {
  readonly start: Instant;
  readonly end: Instant;
}

const EXPECTED = 'not an ISO 8601 interval (expected <start>/<end>, <start>/<duration> or <duration>/<end>)';

function isDurationText(part: string): boolean {
  const first = part[0];
  return first === 'P' || first === 'p' || ((first === '-' || first === '+') && (part[1] === 'P' || part[1] === 'p'));
}

function prefixed(part: 'start' | 'end', error: unknown): unknown {
  return error instanceof TimeFormatError ? new TimeFormatError(`${part}: ${error.message}`) : error;
}

function parsePart<T>(part: 'start' | 'end', text: string, parse: (text: string) => T): T {
  try {
    return parse(text);
  } catch (error) {
    throw prefixed(part, error);
  }
}

function applyDuration(part: 'start' | 'end', from: Instant, duration: Duration, sign: 1 | -1): Instant {
  try {
    return addDuration(from, duration, sign);
  } catch (error) {
    throw prefixed(part, error);
  }
}

/**
 * Parses `<start>/<end>`, `<start>/<duration>` or `<duration>/<end>`. Errors in one part name it
 * (`start: ...`, `end: ...`); an end before the start is an error.
 */
export function parseInterval(text: string): Interval {
  if (typeof text !== 'string') throw new TimeFormatError(`${EXPECTED}: got ${typeof text}, not a string`);
  const slash = text.indexOf('/');
  if (slash < 0) throw new TimeFormatError(`${EXPECTED}: got ${quoteInput(text)}: no "/" between start and end`);
  if (text.indexOf('/', slash + 1) >= 0) {
    throw new TimeFormatError(`${EXPECTED}: got ${quoteInput(text)}: more than one "/"`);
  }
  const startText = text.slice(0, slash);
  const endText = text.slice(slash + 1);
  if (startText === '') throw new TimeFormatError('start: missing (nothing before "/")');
  if (endText === '') throw new TimeFormatError('end: missing (nothing after "/")');
  const startIsDuration = isDurationText(startText);
  const endIsDuration = isDurationText(endText);
  if (startIsDuration && endIsDuration) {
    throw new TimeFormatError('end: a duration cannot follow a duration; one side must be a timestamp');
  }

  let start: Instant;
  let end: Instant;
  if (startIsDuration) {
    const duration = parsePart('start', startText, parseDuration);
    end = parsePart('end', endText, parseInstant);
    start = applyDuration('start', end, duration, -1);
  } else {
    start = parsePart('start', startText, parseInstant);
    if (endIsDuration) {
      end = applyDuration('end', start, parsePart('end', endText, parseDuration), 1);
    } else {
      end = parsePart('end', endText, parseInstant);
    }
  }
  if (compareInstants(end, start) < 0) {
    throw new TimeFormatError(`end ${formatInstant(end)} is before start ${formatInstant(start)}`);
  }
  return { start, end };
}

export function formatInterval(interval: Interval): string {
  return `${formatInstant(interval.start)}/${formatInstant(interval.end)}`;
}

/** Whether `instant` lies within the interval, both ends included. */
export function containsInstant(interval: Interval, instant: Instant): boolean {
  return compareInstants(interval.start, instant) <= 0 && compareInstants(instant, interval.end) <= 0;
}
