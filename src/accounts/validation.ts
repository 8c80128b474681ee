import { invalidArgument } from '../domain/errors.ts';
import { parseInstant, TimeFormatError, type Instant } from '../time/index.ts';
import { isScope, sortScopes } from './principal.ts';
import type { Scope } from './principal.ts';

const USERNAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
export const MIN_PASSWORD_LENGTH = 8;
// scrypt cost does not grow with length, but parsing and hashing megabytes per attempt should not be possible.
export const MAX_PASSWORD_LENGTH = 1024;
const MAX_KEY_NAME_LENGTH = 100;
/** Control characters, line and paragraph separators, and the bidirectional marks and controls that reorder what a terminal shows. */
const UNPRINTABLE = /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** Usernames compare case-insensitively: they are stored lowercased. */
export function normalizeUsername(value: unknown, field = 'username'): string {
  if (typeof value !== 'string' || value === '') throw invalidArgument(field, 'is required');
  const username = value.trim().toLowerCase();
  if (!USERNAME.test(username)) {
    throw invalidArgument(field, "use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit");
  }
  return username;
}

export function checkPassword(value: unknown, field = 'password'): string {
  if (typeof value !== 'string' || value === '') throw invalidArgument(field, 'is required');
  if (value.length < MIN_PASSWORD_LENGTH) throw invalidArgument(field, `must have at least ${MIN_PASSWORD_LENGTH} characters`);
  if (value.length > MAX_PASSWORD_LENGTH) throw invalidArgument(field, `must have at most ${MAX_PASSWORD_LENGTH} characters`);
  return value;
}

/** A non-empty list of known scopes, deduplicated and in canonical order. Accepts "read,write" too. */
export function parseScopes(value: unknown, field = 'scopes'): Scope[] {
  const items = typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : value;
  if (!Array.isArray(items) || items.length === 0) throw invalidArgument(field, 'name at least one of read, write, admin');
  items.forEach((item, index) => {
    if (typeof item !== 'string' || !isScope(item)) {
      throw invalidArgument(`${field}[${index}]`, `unknown scope ${JSON.stringify(item)}; use read, write or admin`);
    }
  });
  return sortScopes(items as Scope[]);
}

export function checkKeyName(value: unknown, field = 'name'): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalidArgument(field, 'is required');
  const name = value.trim();
  if (name.length > MAX_KEY_NAME_LENGTH) throw invalidArgument(field, `must have at most ${MAX_KEY_NAME_LENGTH} characters`);
  const unprintable = UNPRINTABLE.exec(name);
  if (unprintable) throw invalidArgument(field, `holds a control character (${escapedCharacter(unprintable[0])}); a key's name is shown in tables and lists`);
  return name;
}

const NAMED_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A control character escaped: `\n`, `\r`, `\t`, or `\uXXXX`. */
export const escapedCharacter = (character: string): string =>
  NAMED_ESCAPES[character] ?? `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Text for a terminal: its control characters escaped, and its backslashes doubled so that no escape is ambiguous. */
export const printable = (text: string): string =>
  text.replace(new RegExp(`\\\\|${UNPRINTABLE.source}`, 'gu'), (found) => (found === '\\' ? '\\\\' : escapedCharacter(found)));

/** The first instant a key cannot expire at: expiries are kept as epoch milliseconds, which a `Date` shows. */
const EXPIRY_LIMIT = '10000-01-01T00:00:00Z';
const EXPIRY_LIMIT_MS = Date.UTC(10000, 0, 1);

/**
 * An optional expiry, as an ISO 8601 timestamp in the future, read as every timestamp of the API is
 * (`parseInstant`: an offset required, no rolled-over dates); returns epoch milliseconds, a fraction of a
 * millisecond dropped, or null.
 */
export function parseExpiry(value: unknown, nowMs: number, field = 'expires_at'): number | null {
  if (value === undefined || value === null || value === '') return null;
  let instant: Instant;
  try {
    instant = parseInstant(value as string);
  } catch (error) {
    if (error instanceof TimeFormatError) throw invalidArgument(field, error.message);
    throw error;
  }
  if (instant.seconds >= BigInt(EXPIRY_LIMIT_MS / 1000)) throw invalidArgument(field, `must be before ${EXPIRY_LIMIT}`);
  const ms = Number(instant.seconds) * 1000 + Math.floor(instant.nanos / 1_000_000);
  if (ms <= nowMs) throw invalidArgument(field, 'must be in the future');
  return ms;
}

const DURATION_UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `90s`, `15m`, `12h`, `30d`, `2w` → milliseconds (the command line's `--expires`). */
export function parseDuration(value: string, field = '--expires'): number {
  const match = /^(\d{1,6})([smhdw])$/.exec(value.trim());
  if (!match || Number(match[1]) === 0) {
    throw invalidArgument(field, 'use a positive number and a unit, e.g. 90s, 15m, 12h, 30d, 2w');
  }
  return Number(match[1]) * DURATION_UNITS[match[2]!]!;
}
