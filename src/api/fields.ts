import { z } from 'zod';
import { PRIMARY_TIMELINE_ID } from '../domain/timelines.ts';
import { parseInstant, parseInterval, type Instant, type Interval } from '../time/index.ts';

/** Reusable zod field types, so every operation reports the same problem the same way. */

/** An id: trimmed, up to 200 characters; `blank` is what an empty one is told. */
const idText = (blank: string) => z.string().trim().min(1, blank).max(200, 'must be at most 200 characters');

export const idField = idText('is required');

export const textField = (max = 10_000) => z.string().max(max, `must be at most ${max} characters`);

/** Text that must hold more than blanks, trimmed. */
export const requiredTextField = (max: number) => z.string().trim().min(1, 'is required').max(max, `must be at most ${max} characters`);

/** Optional text, trimmed: `""` is absent (proto3); blanks alone are refused, neither kept nor taken for absent. */
export const optionalTextField = (max: number) =>
  blankAsMissing(z.string().trim().min(1, 'is blank: give a value, or leave the field out').max(max, `must be at most ${max} characters`).optional());

/** proto3 cannot tell an empty string from a missing one, so REST treats `""` as missing too. */
export const blankAsMissing = <S extends z.ZodType>(schema: S) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema);

/** Text read by `parse`, whose error message becomes the field's problem; `""` is no value given, as on Connect. */
const parsedText = <T>(parse: (text: string) => T) =>
  blankAsMissing(
    z.string().transform((text, ctx): T => {
      try {
        return parse(text);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  );

/** An ISO 8601 instant. */
export const instantField = parsedText<Instant>(parseInstant);

/** An ISO 8601 interval. */
export const intervalField = parsedText<Interval>(parseInterval);

/**
 * Query strings carry numbers as text; JSON bodies carry them as numbers. Both are accepted. `0`, like `""`, is not
 * given: proto3 cannot tell it from absent (AIP-158 reads it so too), so every face gives the default page size.
 */
export const pageSizeField = z.preprocess(
  (value) => {
    const number = typeof value === 'string' && /^[+-]?\d+(\.\d*)?$/.test(value) ? Number(value) : value;
    return number === '' || number === 0 ? undefined : number;
  },
  z.number({ error: 'must be a whole number' }).int('must be a whole number').min(1, 'must be at least 1').optional(),
);

/** Booleans come only in JSON bodies (no GET route has one), so `"true"` is refused as Connect refuses it. */
export const booleanField = z.boolean();


/** Optional: left out (or `""`), it is primary; blanks alone are a mistake, not a way to say primary. */
export const timelineIdField = blankAsMissing(
  idText(`is blank: give a timeline id, or leave the field out for "${PRIMARY_TIMELINE_ID}"`).default(PRIMARY_TIMELINE_ID),
);
export const pageTokenField = blankAsMissing(z.string().max(2000, 'must be at most 2000 characters').optional());
