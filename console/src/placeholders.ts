/**
 * The documented examples use `<prefix>_REPLACE_WITH_<field>` for an id that an earlier response returns
 * (`tl_REPLACE_WITH_timeline_id`). The console remembers such ids from the responses it shows and fills them
 * in when it pre-fills an example. Only ids of one thing are remembered (what was just made or read), never the
 * items of a list: an admin's list of keys is everyone's, and its last key must not become the one the revoke
 * example names. Credentials (`token`) are never remembered.
 */
const PLACEHOLDER = /^[a-z]+_REPLACE_WITH_(\w+)$/;
const STORAGE_KEY = 'tms.console.ids';

const remembered = new Map<string, string>(readStored());

function readStored(): [string, string][] {
  try {
    const parsed: unknown = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? '[]');
    return Array.isArray(parsed) ? (parsed as [string, string][]) : [];
  } catch {
    return [];
  }
}

const isIdField = (name: string) => name === 'id' || name === 'share_token' || (name.endsWith('_id') && name !== 'base_timeline_id');

/** Takes note of the ids in a response, at any depth outside lists. */
export function rememberIds(value: unknown): void {
  const walk = (node: unknown) => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return;
    for (const [name, inner] of Object.entries(node)) {
      if (typeof inner === 'string' && inner !== '' && inner !== 'primary' && isIdField(name)) remembered.set(name, inner);
      else walk(inner);
    }
  };
  walk(value);
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify([...remembered]));
}

/** The example with every placeholder whose id is known replaced by it. */
export function fillPlaceholders<T>(value: T): T {
  return JSON.parse(JSON.stringify(value), (_key, inner: unknown) =>
    typeof inner === 'string' ? inner.replace(PLACEHOLDER, (whole, field: string) => remembered.get(field) ?? whole) : inner,
  ) as T;
}

