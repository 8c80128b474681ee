import { ConnectError, Code } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-web';
import { fromBinary, fromJson, toJson, type DescMethod, type DescMethodUnary, type JsonValue } from '@bufbuild/protobuf';
import { base64Decode } from '@bufbuild/protobuf/wire';
import { FORBIDDEN_METHODS, effectivePath, isRpcPath, type Draft } from './draft.ts';
import { authorizationHeader, isCredentialHeader } from './credentials.ts';
import { detailRegistry, rpcByPath } from './services.ts';

export interface ErrorDetail {
  type: string;
  value: unknown;
}

export interface ErrorInfo {
  code: string;
  message: string;
  details: ErrorDetail[];
}

/** What came back, in one shape for REST and RPC, including failures that never reached the server. */
export interface Outcome {
  kind: 'http' | 'rpc' | 'network' | 'timeout' | 'refused';
  /** HTTP status (REST), or the Connect code (RPC), or the failure in words. */
  statusLine: string;
  ok: boolean;
  status?: number;
  elapsedMs: number;
  sizeBytes: number;
  headers: [string, string][];
  bodyText: string;
  body?: unknown;
  error?: ErrorInfo;
  sentTo: string;
}

export const TIMEOUT_MS = 30_000;

const elapsedSince = (started: number) => Math.round((performance.now() - started) * 10) / 10;

function headerList(headers: Headers): [string, string][] {
  return [...headers.entries()].sort(([a], [b]) => a.localeCompare(b));
}

function requestHeaders(draft: Draft): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of draft.headers) if (name.trim() && !isCredentialHeader(name)) headers[name.trim().toLowerCase()] = value;
  return { ...headers, ...authorizationHeader() };
}

/** Decodes each detail (`{type, value: base64}`) with the tms.v1 detail types; unknown types keep their debug JSON. */
export function decodeDetails(details: unknown): ErrorDetail[] {
  if (!Array.isArray(details)) return [];
  return details.map((detail: { type?: string; value?: string; debug?: unknown }) => {
    const type = String(detail.type ?? '');
    const desc = detailRegistry.getMessage(type);
    if (desc && typeof detail.value === 'string') {
      try {
        return { type, value: toJson(desc, fromBinary(desc, base64Decode(detail.value)), { useProtoFieldName: true }) };
      } catch {
        // fall through to the debug form
      }
    }
    return { type, value: detail.debug ?? detail.value };
  });
}

export async function send(draft: Draft, signal?: AbortSignal): Promise<Outcome> {
  const method = draft.method.trim().toUpperCase();
  if (FORBIDDEN_METHODS.includes(method)) {
    return refused(draft.path, `Browsers do not let a page send ${method} requests (fetch forbids CONNECT, TRACE and TRACK). Use curl instead (see Snippets).`);
  }
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(method)) return refused(draft.path, `"${draft.method}" is not an HTTP method name.`);
  // The page's Content-Security-Policy lets it reach its own origin only; another would fail as a "network error".
  if (!onThisOrigin(draft.path)) {
    return refused(draft.path, `The console sends requests to this service only (${location.origin}); give a path such as /v1/timelines. For another server, use curl (see Snippets).`);
  }
  if (isRpcPath(draft.path)) return sendRpc(draft, rpcByPath.get(draft.path.split('?')[0]!)!, signal);
  return sendRest(draft, method, signal);
}

function onThisOrigin(path: string): boolean {
  try {
    return new URL(path, location.origin).origin === location.origin;
  } catch {
    return false;
  }
}

function refused(path: string, message: string): Outcome {
  return { kind: 'refused', statusLine: 'Not sent', ok: false, elapsedMs: 0, sizeBytes: 0, headers: [], bodyText: message, sentTo: path };
}

function failure(error: unknown, started: number, path: string, timedOut: boolean): Outcome {
  const elapsedMs = elapsedSince(started);
  if (timedOut) {
    return { kind: 'timeout', statusLine: `Timed out after ${TIMEOUT_MS / 1000} s`, ok: false, elapsedMs, sizeBytes: 0, headers: [], bodyText: 'No answer arrived in time.', sentTo: path };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    kind: 'network',
    statusLine: 'Network error',
    ok: false,
    elapsedMs,
    sizeBytes: 0,
    headers: [],
    bodyText: `The request did not complete: ${message}. The server may be down or unreachable.`,
    sentTo: path,
  };
}

async function sendRest(draft: Draft, method: string, signal?: AbortSignal): Promise<Outcome> {
  const target = effectivePath(draft);
  if (!target.ok) return refused(draft.path, target.problem);
  const path = target.path ?? draft.path;
  const bodyless = method === 'GET' || method === 'HEAD';
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new DOMException('timed out', 'TimeoutError')), TIMEOUT_MS);
  signal?.addEventListener('abort', () => timeout.abort(signal.reason));
  const started = performance.now();
  let response: Response;
  let bytes: Uint8Array;
  try {
    response = await fetch(path, {
      method,
      headers: requestHeaders(draft),
      body: bodyless || draft.body === '' ? undefined : draft.body,
      signal: timeout.signal,
      credentials: 'omit',
      cache: 'no-store',
      redirect: 'manual',
    });
    bytes = new Uint8Array(await response.arrayBuffer());
  } catch (error) {
    return failure(error, started, path, timeout.signal.reason instanceof DOMException && timeout.signal.reason.name === 'TimeoutError');
  } finally {
    clearTimeout(timer);
  }
  const elapsedMs = elapsedSince(started);
  const bodyText = new TextDecoder().decode(bytes);
  let body: unknown;
  try {
    body = bodyText ? JSON.parse(bodyText) : undefined;
  } catch {
    body = undefined;
  }
  const outcome: Outcome = {
    kind: 'http',
    statusLine: `${response.status} ${response.statusText || httpReason(response.status)}`.trim(),
    ok: response.ok,
    status: response.status,
    elapsedMs,
    sizeBytes: bytes.length,
    headers: headerList(response.headers),
    bodyText,
    body,
    sentTo: path,
  };
  if (!response.ok && body && typeof body === 'object' && 'code' in body) {
    const error = body as { code: unknown; message?: unknown; details?: unknown };
    outcome.error = { code: String(error.code), message: String(error.message ?? ''), details: decodeDetails(error.details) };
  }
  return outcome;
}

async function sendRpc(draft: Draft, method: DescMethod, signal?: AbortSignal): Promise<Outcome> {
  const path = draft.path;
  let input;
  try {
    input = fromJson(method.input, (draft.body.trim() === '' ? {} : JSON.parse(draft.body)) as JsonValue);
  } catch (error) {
    return refused(path, `The body is not a valid ${method.input.typeName} in JSON: ${(error as Error).message}`);
  }
  const transport = createConnectTransport({ baseUrl: location.origin, useBinaryFormat: false, jsonOptions: { useProtoFieldName: true } });
  const headers = requestHeaders(draft);
  delete headers['content-type'];
  const started = performance.now();
  try {
    const response = await transport.unary(method as DescMethodUnary, signal, TIMEOUT_MS, headers, input);
    const body = toJson(method.output, response.message, { useProtoFieldName: true, alwaysEmitImplicit: true });
    const bodyText = JSON.stringify(body, null, 2);
    return {
      kind: 'rpc',
      statusLine: 'OK',
      ok: true,
      elapsedMs: elapsedSince(started),
      sizeBytes: new TextEncoder().encode(JSON.stringify(body)).length,
      headers: [...headerList(response.header), ...headerList(response.trailer)],
      bodyText,
      body,
      sentTo: path,
    };
  } catch (thrown) {
    const error = ConnectError.from(thrown);
    if (error.code === Code.DeadlineExceeded && performance.now() - started >= TIMEOUT_MS) return failure(error, started, path, true);
    if (error.code === Code.Unknown && /fetch|network/i.test(error.rawMessage)) return failure(error, started, path, false);
    const details: ErrorDetail[] = error.details.map((detail) => {
      if ('desc' in detail) return { type: detail.desc.typeName, value: toJson(detail.desc, detail.value as never) };
      const desc = detailRegistry.getMessage(detail.type);
      if (!desc) return { type: detail.type, value: detail.debug };
      return { type: detail.type, value: toJson(desc, fromBinary(desc, detail.value), { useProtoFieldName: true }) };
    });
    const code = codeName(error.code);
    const info: ErrorInfo = { code, message: error.rawMessage, details };
    const bodyText = JSON.stringify({ code, message: error.rawMessage, details }, null, 2);
    return {
      kind: 'rpc',
      statusLine: code,
      ok: false,
      elapsedMs: elapsedSince(started),
      sizeBytes: new TextEncoder().encode(bodyText).length,
      headers: headerList(error.metadata),
      bodyText,
      body: { code, message: error.rawMessage, details },
      error: info,
      sentTo: path,
    };
  }
}

/** `invalid_argument`: the Connect protocol's name for a code. */
export function codeName(code: Code): string {
  return Code[code].replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
}

const REASONS: Record<number, string> = {
  200: 'OK', 204: 'No Content', 304: 'Not Modified', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found',
  405: 'Method Not Allowed', 408: 'Request Timeout', 409: 'Conflict', 413: 'Content Too Large', 415: 'Unsupported Media Type',
  429: 'Too Many Requests', 499: 'Client Closed Request', 500: 'Internal Server Error', 501: 'Not Implemented', 503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** HTTP/2 has no reason phrases; the console shows the standard one. */
const httpReason = (status: number): string => REASONS[status] ?? '';
