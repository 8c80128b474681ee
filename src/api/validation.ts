import type { z } from 'zod';
import { ApiError, fieldViolation } from '../domain/errors.ts';

/** `new_outcome.changes[0].time`: the path as a client would write it in JSON. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

const ZOD_OWN_WORDS = 'Invalid input';

function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  switch (issue.code) {
    case 'invalid_type': {
      const got = valueAt(input, issue.path);
      // `""` where text belongs is a field not given (proto3), as `blankAsMissing` reads it.
      if (got === undefined || (got === '' && issue.expected === 'string')) return 'is required';
      // A schema's own words (`must be a whole number`) say more than zod's, which start so.
      if (!issue.message.startsWith(ZOD_OWN_WORDS)) return issue.message;
      return `expected ${issue.expected}, got ${typeName(got)}`;
    }
    case 'unrecognized_keys':
      return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return issue.message;
  }
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** A JSON value's kind as error messages name it. */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Parses a request with its schema; the first problem becomes the message, every problem a detail. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const violations = result.error.issues.map((issue) => {
    // An unknown key is reported on the key itself, not on the object holding it.
    const path =
      issue.code === 'unrecognized_keys' && issue.keys.length === 1 ? [...issue.path, issue.keys[0]!] : issue.path;
    const field = fieldPath(path) || 'request body';
    const description =
      issue.code === 'unrecognized_keys' && issue.keys.length === 1 ? 'unknown field' : describeIssue(issue, input);
    return { field, description };
  });
  const first = violations[0]!;
  throw new ApiError(
    'invalid_argument',
    `${first.field}: ${first.description}`,
    violations.map((v) => fieldViolation(v.field, v.description)),
  );
}
