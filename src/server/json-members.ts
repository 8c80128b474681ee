/**
 * What `JSON.parse` does not say about a body: an object naming a member twice (it keeps the last) and strings
 * holding an unpaired surrogate (`"\ud800"`, which no UTF-8 encoding of the text can carry).
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/**
 * Whether some object in the text has two members of one name. The text is valid JSON, so each member has the
 * one colon outside strings: the parsed value holds fewer keys than the text has colons exactly when names were merged.
 */
export function namesAMemberTwice(text: string, parsed: unknown): boolean {
  let colons = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === QUOTE) {
      for (i++; text.charCodeAt(i) !== QUOTE; i++) if (text.charCodeAt(i) === BACKSLASH) i++;
    } else if (char === COLON) {
      colons++;
    }
  }
  return colons !== memberCount(parsed);
}

/** The members of every object in a parsed value; without recursion, as a body may nest thousands deep. */
function memberCount(parsed: unknown): number {
  let count = 0;
  const pending = [parsed];
  while (pending.length > 0) {
    const value = pending.pop();
    if (value === null || typeof value !== 'object') continue;
    const items = Array.isArray(value) ? (value as unknown[]) : Object.values(value);
    if (!Array.isArray(value)) count += items.length;
    for (const item of items) pending.push(item);
  }
  return count;
}

/** The first member name that valid JSON text gives twice in one object, or undefined. */
export function repeatedMemberName(text: string): string | undefined {
  // One entry per open object or array: the names seen so far, or undefined for an array.
  const open: (Set<string> | undefined)[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '{') open.push(new Set());
    else if (char === '[') open.push(undefined);
    else if (char === '}' || char === ']') open.pop();
    else if (char === '"') {
      const start = i;
      for (i++; text.charCodeAt(i) !== QUOTE; i++) if (text.charCodeAt(i) === BACKSLASH) i++;
      let next = i + 1;
      while (/\s/.test(text[next] ?? '')) next++;
      const names = open.at(-1);
      if (text.charCodeAt(next) !== COLON || !names) continue;
      const name = JSON.parse(text.slice(start, i + 1)) as string;
      if (names.has(name)) return name;
      names.add(name);
    }
  }
  return undefined;
}

/** An escape that may stand for half of a surrogate pair, which is all a text that is valid UTF-8 can hold of one. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** Where the first string of the parsed text that holds an unpaired surrogate is (`new_outcome.changes[0].action`). */
export function unpairedSurrogatePath(text: string, parsed: unknown): string | undefined {
  return SURROGATE_ESCAPE.test(text) ? unpairedIn(parsed) : undefined;
}

function unpairedIn(parsed: unknown): string | undefined {
  // Without recursion, as a body may nest thousands deep.
  const pending: [unknown, string][] = [[parsed, '']];
  while (pending.length > 0) {
    const [value, path] = pending.pop()!;
    if (typeof value === 'string') {
      if (!value.isWellFormed()) return path;
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!;
        const at = Array.isArray(value) ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`;
        if (!key.isWellFormed()) return at;
        pending.push([item, at]);
      }
    }
  }
  return undefined;
}
