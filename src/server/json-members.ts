/**
 * What `JSON.parse` does not say about a body: an object naming a member twice (it keeps the last) and strings
 * holding an unpaired surrogate (`"\ud800"`, which no UTF-8 encoding of the text can carry).
 */
import { fieldPath } from '../api/validation.ts';

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
  const pending: object[] = [];
  if (parsed !== null && typeof parsed === 'object') pending.push(parsed);
  while (pending.length > 0) {
    const value = pending.pop() as Record<string, unknown>;
    const isArray = Array.isArray(value);
    for (const key in value) {
      if (!isArray) count++;
      const item = value[key];
      if (item !== null && typeof item === 'object') pending.push(item);
    }
  }
  return count;
}

/** An open object (the names it has so far, and the one being read) or array (the item being read). */
type Open = { names: Set<string>; name?: string } | { index: number };

/** Where the first member that valid JSON text names twice in one object is (`new_outcome.description`), or undefined. */
export function repeatedMemberPath(text: string): string | undefined {
  const open: Open[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    const top = open.at(-1);
    if (char === '{') open.push({ names: new Set() });
    else if (char === '[') open.push({ index: 0 });
    else if (char === '}' || char === ']') open.pop();
    else if (char === ',' && top && 'index' in top) top.index++;
    else if (char === '"') {
      const start = i;
      for (i++; text.charCodeAt(i) !== QUOTE; i++) if (text.charCodeAt(i) === BACKSLASH) i++;
      let next = i + 1;
      while (/\s/.test(text[next] ?? '')) next++;
      if (text.charCodeAt(next) !== COLON || !top || !('names' in top)) continue;
      const name = JSON.parse(text.slice(start, i + 1)) as string;
      top.name = name;
      if (top.names.has(name)) return fieldPath(open.map((frame) => ('index' in frame ? frame.index : frame.name!)));
      top.names.add(name);
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

/** A value still to look at, with the way to it (kept as links, so that a deep body costs no path per value). */
interface Pending {
  value: unknown;
  key?: string | number;
  parent?: Pending;
}

function unpairedIn(parsed: unknown): string | undefined {
  const pending: Pending[] = [{ value: parsed }];
  while (pending.length > 0) {
    const at = pending.pop()!;
    const { value } = at;
    if (typeof value === 'string') {
      if (!value.isWellFormed()) return pathOf(at);
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i]!;
        const next: Pending = { value: item, key: Array.isArray(value) ? i : key, parent: at };
        if (!key.isWellFormed()) return pathOf(next);
        pending.push(next);
      }
    }
  }
  return undefined;
}

function pathOf(at: Pending): string {
  const keys: (string | number)[] = [];
  for (let link: Pending | undefined = at; link?.key !== undefined; link = link.parent) keys.push(link.key);
  return fieldPath(keys.reverse());
}
