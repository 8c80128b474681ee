import type { OperationEntry } from './operations.ts';
import { fillPlaceholders } from './placeholders.ts';
import { rpcByPath } from './services.ts';

/** What the request pane holds: exactly what will be sent, minus the credential. */
export interface Draft {
  method: string;
  /** Path and query on this origin. */
  path: string;
  headers: [string, string][];
  body: string;
}

export const emptyDraft = (): Draft => ({ method: 'GET', path: '/v1/search-events', headers: [['content-type', 'application/json']], body: '' });

/** Methods fetch() refuses to send; the console says so instead of failing obscurely. */
export const FORBIDDEN_METHODS = ['CONNECT', 'TRACE', 'TRACK'];

export const isRpcPath = (path: string): boolean => rpcByPath.has(path.split('?')[0]!);

/** A draft from an operation's documented example, with ids from earlier responses filled in. */
export function draftFor(entry: OperationEntry): Draft {
  const example = fillPlaceholders(entry.example);
  let path = entry.pathTemplate;
  const fields: Record<string, unknown> = { ...example };
  for (const name of entry.pathParams) {
    path = path.replace(`{${name}}`, encodeURIComponent(String(example[name] ?? `{${name}}`)));
    delete fields[name];
  }
  const hasFields = Object.keys(fields).length > 0;
  return {
    method: entry.method,
    path,
    headers: [['content-type', 'application/json']],
    body: hasFields || entry.kind === 'rpc' || entry.method === 'POST' ? JSON.stringify(fields, null, 2) : '',
  };
}

export type BodyAsQuery = { ok: true; query: string } | { ok: false; problem: string };

/**
 * Browsers cannot send a body with GET or HEAD; the server takes the same fields from the query string,
 * so the body's fields become query parameters (nested values as JSON text), shown before sending.
 */
export function bodyAsQuery(body: string): BodyAsQuery {
  if (body.trim() === '') return { ok: true, query: '' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    return { ok: false, problem: `the body is not valid JSON (${(error as Error).message}), so it cannot become the query string` };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { ok: false, problem: 'a GET body must be a JSON object to become the query string' };
  }
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(parsed)) {
    if (value === undefined || value === null) continue;
    query.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return { ok: true, query: query.toString() };
}

/** The URL path a draft is really sent to (a GET body moved into the query string). */
export function effectivePath(draft: Draft): BodyAsQuery & { path?: string } {
  const method = draft.method.toUpperCase();
  if ((method !== 'GET' && method !== 'HEAD') || draft.body.trim() === '' || isRpcPath(draft.path)) return { ok: true, query: '', path: draft.path };
  const moved = bodyAsQuery(draft.body);
  if (!moved.ok || moved.query === '') return { ...moved, path: draft.path };
  return { ...moved, path: `${draft.path}${draft.path.includes('?') ? '&' : '?'}${moved.query}` };
}
