import type { Draft } from './draft.ts';
import type { SavedRequestRecord } from '../../src/saved-requests/records.ts';
import { authorizationHeader, bodyWithoutPasswords, isCredentialHeader } from './credentials.ts';
import { decodeDetails, type ErrorInfo } from './send.ts';

/** A request saved on the server (`/v1/console/requests`), as ConsoleService returns it. */
export type SavedRequest = SavedRequestRecord;

export class ApiFailure extends Error {
  constructor(readonly status: number, readonly info: ErrorInfo) {
    super(info.message);
  }
}

async function call<T>(method: string, path: string, body?: unknown, credential = authorizationHeader()): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...credential },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'omit',
    cache: 'no-store',
  });
  const json = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) {
    throw new ApiFailure(response.status, { code: String(json['code'] ?? response.status), message: String(json['message'] ?? response.statusText), details: decodeDetails(json['details']) });
  }
  return json as T;
}

export const saveRequest = (name: string, draft: Draft) =>
  call<{ saved_request: SavedRequest }>('POST', '/v1/console/requests', {
    name,
    method: draft.method.toUpperCase(),
    path: draft.path,
    // The server strips credential headers too; the console never sends them here in the first place.
    headers: Object.fromEntries(draft.headers.filter(([n]) => n.trim() && !isCredentialHeader(n)).map(([n, v]) => [n.trim().toLowerCase(), v])),
    body: bodyWithoutPasswords(draft.body),
  }).then((r) => r.saved_request);

export const listSaved = (pageToken = '') =>
  call<{ saved_requests: SavedRequest[]; next_page_token: string }>('GET', `/v1/console/requests?page_size=50${pageToken ? `&page_token=${encodeURIComponent(pageToken)}` : ''}`);

export const getShared = (token: string) =>
  call<{ saved_request: SavedRequest }>('GET', `/v1/console/shared/${encodeURIComponent(token)}`).then((r) => r.saved_request);

export const shareSaved = (id: string) =>
  call<{ saved_request: SavedRequest }>('POST', `/v1/console/requests/${encodeURIComponent(id)}/share`).then((r) => r.saved_request);

export const unshareSaved = (id: string) =>
  call<{ saved_request: SavedRequest }>('DELETE', `/v1/console/requests/${encodeURIComponent(id)}/share`).then((r) => r.saved_request);

export const deleteSaved = (id: string) => call<{ status: string }>('DELETE', `/v1/console/requests/${encodeURIComponent(id)}`);

export const login = (username: string, password: string) =>
  call<{ token: string; expires_at: string }>('POST', '/v1/login', { username, password });

/** Ends the session held, or the one whose token is given. */
export const logout = (sessionToken?: string) =>
  call<{ status: string }>('POST', '/v1/logout', {}, sessionToken === undefined ? authorizationHeader() : { authorization: `Bearer ${sessionToken}` });

export const draftOf = (saved: SavedRequest): Draft => ({
  method: saved.method,
  path: saved.path,
  headers: Object.entries(saved.headers),
  body: saved.body,
});
