import type { Config } from '../config.ts';
import { invalidArgument } from '../domain/errors.ts';

/** The page size a list call asked for, or the default; more than the maximum is refused by name. */
export function pageSizeOf(requested: number | undefined, config: Pick<Config, 'defaultPageSize' | 'maxPageSize'>): number {
  const pageSize = requested ?? config.defaultPageSize;
  if (pageSize > config.maxPageSize) throw invalidArgument('page_size', `must be at most ${config.maxPageSize}`);
  return pageSize;
}

export interface Page<T> {
  items: T[];
  /** '' on the last page. */
  nextPageToken: string;
}

/** What every page token of a list held in memory starts with: anything else is not one of ours. */
const TOKEN_PREFIX = 'after:';

const byKey = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * One page of a list held in memory, in the order of `sortKeyOf` (unique per item). The token is opaque to clients:
 * the sort key of the previous page's last item, base64url. The next page starts at the first item after that key,
 * so a walk stays right when items are added or removed between calls, that last item included.
 */
export function pageOf<T>(items: readonly T[], sortKeyOf: (item: T) => string, pageSize: number, pageToken: string | undefined): Page<T> {
  const keyed = items.map((item) => ({ item, key: sortKeyOf(item) })).sort((a, b) => byKey(a.key, b.key));
  let start = 0;
  if (pageToken) {
    const token = Buffer.from(pageToken, 'base64url').toString('utf8');
    if (!token.startsWith(TOKEN_PREFIX)) throw invalidArgument('page_token', 'not a token from a previous page of this list');
    const after = token.slice(TOKEN_PREFIX.length);
    start = keyed.findIndex(({ key }) => key > after);
    if (start === -1) start = keyed.length;
  }
  const page = keyed.slice(start, start + pageSize);
  const more = start + pageSize < keyed.length;
  return { items: page.map(({ item }) => item), nextPageToken: more ? Buffer.from(TOKEN_PREFIX + page.at(-1)!.key).toString('base64url') : '' };
}
