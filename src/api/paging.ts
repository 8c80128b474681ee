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

/**
 * One page of a list held in memory, in its order. The token is opaque to clients (the last id of the
 * previous page, base64url), so a page walk stays right when items are added or removed between calls.
 */
export function pageOf<T>(items: readonly T[], idOf: (item: T) => string, pageSize: number, pageToken: string | undefined): Page<T> {
  let start = 0;
  if (pageToken) {
    const after = Buffer.from(pageToken, 'base64url').toString('utf8');
    start = items.findIndex((item) => idOf(item) === after) + 1;
    if (start === 0) throw invalidArgument('page_token', 'not a token from a previous page of this list');
  }
  const page = items.slice(start, start + pageSize);
  const more = start + pageSize < items.length;
  return { items: page, nextPageToken: more ? Buffer.from(idOf(page.at(-1)!)).toString('base64url') : '' };
}
