import { randomBytes } from 'node:crypto';
import { ApiError, invalidArgument, notFound } from '../domain/errors.ts';
import { FieldProblems } from '../domain/field-problems.ts';
import type { NewSavedRequest, SavedRequestRecord } from './records.ts';
import type { SavedRequestStore } from './saved-request-store.ts';
import { WriterQueues } from '../store/writer-queues.ts';

export const SAVED_REQUEST_LIMITS = {
  perAccount: 200,
  nameChars: 200,
  pathChars: 2000,
  headers: 50,
  headerNameChars: 100,
  headerValueChars: 4096,
  bodyBytes: 64 * 1024,
} as const;

/** What a browser can send (fetch forbids CONNECT, TRACE and TRACK). */
export const SAVABLE_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Never stored: a saved or shared request must not carry anyone's credential. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const ID = /^req_[0-9a-z]{1,40}$/;

export interface SavedPage {
  records: SavedRequestRecord[];
  nextPageToken: string;
}

/**
 * The rules for saved console requests: they belong to the account that saved them, and to nobody else
 * (any other caller, admins included, gets not_found, as for an id that does not exist); a share token
 * lets any logged-in caller read one while it is shared.
 */
export class SavedRequests {
  /** Saves of one owner run one at a time, so that the count limit holds under concurrency. */
  private readonly queues = new WriterQueues();
  private lastIdMs = 0;

  constructor(
    private readonly store: SavedRequestStore,
    private readonly now: () => number = Date.now,
  ) {}

  save(owner: string, input: NewSavedRequest): Promise<SavedRequestRecord> {
    const request = checkNewRequest(input);
    return this.serially(owner, async () => {
      if ((await this.store.count(owner)) >= SAVED_REQUEST_LIMITS.perAccount) {
        throw new ApiError('resource_exhausted', `an account keeps at most ${SAVED_REQUEST_LIMITS.perAccount} saved requests; delete some first`);
      }
      const record: SavedRequestRecord = { ...request, id: this.newId(), created_at: new Date(this.now()).toISOString(), owner, share_token: '' };
      await this.store.put(record);
      return record;
    });
  }

  /** Newest first. The page token is opaque to clients: the last id of the page, base64url. */
  async list(owner: string, pageSize: number, pageToken: string | undefined): Promise<SavedPage> {
    let after: string | undefined;
    if (pageToken) {
      after = Buffer.from(pageToken, 'base64url').toString('utf8');
      if (!ID.test(after)) throw invalidArgument('page_token', 'not a token from a previous page of this list');
    }
    const records = await this.store.list(owner, { after, limit: pageSize + 1 });
    const page = records.slice(0, pageSize);
    return { records: page, nextPageToken: records.length > pageSize ? Buffer.from(page.at(-1)!.id).toString('base64url') : '' };
  }

  async get(owner: string, id: string): Promise<SavedRequestRecord> {
    const record = ID.test(id) ? await this.store.get(owner, id) : undefined;
    if (!record) throw notFound('saved request', id);
    return record;
  }

  async getShared(token: string): Promise<SavedRequestRecord> {
    const record = await this.store.findByShareToken(token);
    if (!record) throw new ApiError('not_found', 'no request is shared with this token (it may have been unshared or deleted)');
    return record;
  }

  share(owner: string, id: string): Promise<SavedRequestRecord> {
    return this.serially(owner, async () => {
      const record = await this.get(owner, id);
      if (record.share_token) return record;
      const shared = { ...record, share_token: `shr_${randomBytes(32).toString('base64url')}` };
      await this.store.put(shared);
      return shared;
    });
  }

  unshare(owner: string, id: string): Promise<SavedRequestRecord> {
    return this.serially(owner, async () => {
      const record = await this.get(owner, id);
      if (!record.share_token) return record;
      const unshared = { ...record, share_token: '' };
      await this.store.put(unshared, record.share_token);
      return unshared;
    });
  }

  delete(owner: string, id: string): Promise<SavedRequestRecord> {
    return this.serially(owner, async () => {
      const record = await this.get(owner, id);
      await this.store.delete(record);
      return record;
    });
  }

  /** Deletes every request an owner saved (the owner's account is gone: a new account of that name starts empty). */
  forgetOwner(owner: string): Promise<number> {
    return this.serially(owner, async () => {
      let deleted = 0;
      for (let batch = await this.store.list(owner, { limit: 100 }); batch.length > 0; batch = await this.store.list(owner, { limit: 100 })) {
        for (const record of batch) await this.store.delete(record);
        deleted += batch.length;
      }
      return deleted;
    });
  }

  private serially<T>(owner: string, work: () => Promise<T>): Promise<T> {
    return this.queues.run(owner, work);
  }

  /** Time-ordered (base36 milliseconds, strictly increasing here) with a random tail. */
  private newId(): string {
    this.lastIdMs = Math.max(this.now(), this.lastIdMs + 1);
    return `req_${this.lastIdMs.toString(36).padStart(9, '0')}${randomBytes(5).toString('hex')}`;
  }
}

/** Any origin: a saved path is resolved against it to see that it stays there. */
const SAME_ORIGIN = 'http://tms.invalid';
const isControl = (char: string): boolean => char < ' ' || char === '\x7f';

/** The request as it will be stored: checked field by field (every bad one reported), credential headers removed. */
function checkNewRequest(input: NewSavedRequest): NewSavedRequest {
  const problems = new FieldProblems();
  const name = problems.read(() => checkedName(input.name));
  const method = problems.read(() => checkedMethod(input.method));
  const path = problems.read(() => checkedPath(input.path));
  const headers = problems.read(() => checkedHeaders(input.headers));
  problems.read(() => checkBodySize(input.body));
  problems.throwIfAny();
  return { name: name!, method: method!, path: path!, headers: headers!, body: input.body };
}

function checkedName(text: string): string {
  const name = text.trim();
  if (name === '') throw invalidArgument('name', 'is required');
  if ([...name].length > SAVED_REQUEST_LIMITS.nameChars) throw invalidArgument('name', `must be at most ${SAVED_REQUEST_LIMITS.nameChars} characters`);
  return name;
}

function checkedMethod(text: string): string {
  const method = text.trim().toUpperCase();
  if (method === '') throw invalidArgument('method', 'is required');
  if (!(SAVABLE_METHODS as readonly string[]).includes(method)) throw invalidArgument('method', `must be one of ${SAVABLE_METHODS.join(', ')}`);
  return method;
}

function checkedPath(text: string): string {
  const path = text.trim();
  if (path === '') throw invalidArgument('path', 'is required');
  if (!path.startsWith('/') || path.startsWith('//')) throw invalidArgument('path', 'must be a path on this service, starting with "/" (no scheme or host)');
  // A browser reads "\" as "/" and drops tabs and line breaks, which would make "/\host" or "/<tab>/host" another host.
  if (path.includes('\\') || [...path].some(isControl) || new URL(path, SAME_ORIGIN).origin !== SAME_ORIGIN) {
    throw invalidArgument('path', 'must be a path on this service, without backslashes or control characters');
  }
  if (path.length > SAVED_REQUEST_LIMITS.pathChars) throw invalidArgument('path', `must be at most ${SAVED_REQUEST_LIMITS.pathChars} characters`);
  return path;
}

function checkedHeaders(input: Record<string, string>): Record<string, string> {
  const entries = Object.entries(input);
  if (entries.length > SAVED_REQUEST_LIMITS.headers) throw invalidArgument('headers', `at most ${SAVED_REQUEST_LIMITS.headers} headers`);
  const problems = new FieldProblems();
  const headers: Record<string, string> = {};
  const givenAs = new Map<string, string>();
  for (const [rawName, value] of entries) {
    const header = problems.read(() => checkedHeader(rawName, value, givenAs));
    if (header === undefined) continue;
    givenAs.set(header, rawName);
    if (!CREDENTIAL_HEADERS.has(header)) headers[header] = value;
  }
  problems.throwIfAny();
  return headers;
}

/** Tab and the visible characters of Latin-1, as an HTTP field value may hold them (RFC 9110 §5.5). */
const HEADER_VALUE = /^[\t\x20-\x7e\xa0-\xff]*$/;

/** The header's name as stored (lower case). Names differ by case only: one header given twice, refused. */
function checkedHeader(rawName: string, value: string, givenAs: ReadonlyMap<string, string>): string {
  const headerName = rawName.trim().toLowerCase();
  if (!HEADER_NAME.test(headerName) || headerName.length > SAVED_REQUEST_LIMITS.headerNameChars) {
    throw invalidArgument(`headers.${rawName}`, `not a valid header name (letters, digits and !#$%&'*+.^_\`|~-, at most ${SAVED_REQUEST_LIMITS.headerNameChars})`);
  }
  const earlier = givenAs.get(headerName);
  if (earlier !== undefined) throw invalidArgument(`headers.${rawName}`, `the same header as "${earlier}" (header names ignore case); give it once`);
  if (value.length > SAVED_REQUEST_LIMITS.headerValueChars) throw invalidArgument(`headers.${rawName}`, `must be at most ${SAVED_REQUEST_LIMITS.headerValueChars} characters`);
  if (!HEADER_VALUE.test(value)) throw invalidArgument(`headers.${rawName}`, 'not a valid header value (tab and printable Latin-1 characters only: no line breaks or other control characters)');
  return headerName;
}

function checkBodySize(body: string): void {
  if (Buffer.byteLength(body) > SAVED_REQUEST_LIMITS.bodyBytes) {
    throw invalidArgument('body', `must be at most ${SAVED_REQUEST_LIMITS.bodyBytes} bytes (${SAVED_REQUEST_LIMITS.bodyBytes / 1024} KiB)`);
  }
}
