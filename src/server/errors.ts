import { ConnectError, Code } from '@connectrpc/connect';
import { codeToHttpStatus } from '@connectrpc/connect/protocol-connect';
import { ApiError, fieldViolation, type ErrorCode, type ErrorReason } from '../domain/errors.ts';
import { detailJson, typedDetail } from './error-details.ts';
import { StoreUnavailableError } from '../store/storage.ts';

/** Each code as connect-es numbers it. */
const connectCodeOf: Record<ErrorCode, Code> = {
  canceled: Code.Canceled,
  unknown: Code.Unknown,
  invalid_argument: Code.InvalidArgument,
  deadline_exceeded: Code.DeadlineExceeded,
  not_found: Code.NotFound,
  already_exists: Code.AlreadyExists,
  permission_denied: Code.PermissionDenied,
  resource_exhausted: Code.ResourceExhausted,
  failed_precondition: Code.FailedPrecondition,
  aborted: Code.Aborted,
  out_of_range: Code.OutOfRange,
  unimplemented: Code.Unimplemented,
  internal: Code.Internal,
  unavailable: Code.Unavailable,
  data_loss: Code.DataLoss,
  unauthenticated: Code.Unauthenticated,
};

const errorCodeOf = new Map(Object.entries(connectCodeOf).map(([name, code]) => [code, name as ErrorCode]));

/** A code's name from its number, which gRPC's status and connect-es's `Code` share. */
export const codeName = (code: number): ErrorCode => errorCodeOf.get(code) ?? 'unknown';

/** The Connect protocol's HTTP status of each code. */
export const httpStatusOf = Object.fromEntries(
  Object.entries(connectCodeOf).map(([name, code]) => [name, codeToHttpStatus(code)]),
) as Record<ErrorCode, number>;

/** The code a Connect error status most likely stands for (several codes share 400, 409 and 500). */
const likeliestCodeOfStatus = new Map<number, ErrorCode>(
  (['invalid_argument', 'unauthenticated', 'permission_denied', 'not_found', 'already_exists', 'resource_exhausted', 'canceled', 'internal', 'unimplemented', 'unavailable', 'deadline_exceeded'] as const).map(
    (code) => [httpStatusOf[code], code],
  ),
);

/** The code of a Connect error answer, read from its HTTP status alone. */
export const codeOfConnectStatus = (status: number): ErrorCode => likeliestCodeOfStatus.get(status) ?? 'unknown';

/** Where HTTP has a status more precise than the code's own. */
const httpStatusOfReason: Record<ErrorReason, number> = {
  body_too_large: 413,
  unsupported_content_type: 415,
  method_not_allowed: 405,
  no_such_path: 404,
};

export const httpStatusFor = (error: ApiError): number =>
  (error.reason && httpStatusOfReason[error.reason]) ?? httpStatusOf[error.code];

/** The field name error details use for the body as a whole (`proto/tms/v1/error_details.proto`). */
export const REQUEST_BODY = 'request body';

export const bodyTooLarge = (limit: number): ApiError =>
  new ApiError('resource_exhausted', `${REQUEST_BODY}: larger than the limit of ${limit} bytes`, [], 'body_too_large');

/** A body in a content type that the path does not read: `expected` names the ones it does. */
export function unsupportedContentType(expected: string, got: string | undefined): ApiError {
  const problem = `Content-Type must be ${expected}, got ${JSON.stringify(got ?? '')}`;
  return new ApiError('invalid_argument', `${REQUEST_BODY}: ${problem}`, [fieldViolation(REQUEST_BODY, problem)], 'unsupported_content_type');
}

/** A body in a content coding that the path does not read (`Content-Encoding: gzip`): 415, as RFC 9110 has it. */
export function unsupportedContentEncoding(got: string): ApiError {
  const problem = `Content-Encoding ${JSON.stringify(got)} is not supported; send the body uncompressed`;
  return new ApiError('invalid_argument', `${REQUEST_BODY}: ${problem}`, [fieldViolation(REQUEST_BODY, problem)], 'unsupported_content_type');
}

/** What a 401 asks for (RFC 9110 requires the challenge; RFC 6750 gives its form). */
export const BEARER_CHALLENGE = 'Bearer realm="tms"';

/** Anything thrown while serving becomes an ApiError; unexpected errors never leak their text. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ConnectError) {
    return new ApiError(errorCodeOf.get(error.code) ?? 'unknown', error.rawMessage);
  }
  if (error instanceof StoreUnavailableError) {
    return new ApiError('unavailable', 'the database is unavailable; try again shortly', [{ type: 'tms.v1.RetryInfo', debug: { retry_after_seconds: 1 } }]);
  }
  return new ApiError('internal', 'internal error (see the server log for this request id)');
}

/**
 * A retry hint also goes out as `retry-after` metadata (seconds), and a 401's challenge as `www-authenticate`: a
 * gRPC trailer, a Connect response header.
 */
export function toConnectError(error: ApiError): ConnectError {
  const retryAfter = retryAfterSeconds(error);
  const metadata: Record<string, string> | undefined =
    retryAfter !== undefined ? { 'retry-after': String(retryAfter) } : error.code === 'unauthenticated' ? { 'www-authenticate': BEARER_CHALLENGE } : undefined;
  const details = error.errorDetails.map(typedDetail).filter((detail) => detail !== undefined);
  return new ConnectError(error.message, connectCodeOf[error.code], metadata, details, error);
}

/** The Connect error JSON, the one error body every REST response uses. */
export function errorBody(error: ApiError): string {
  const body: { code: string; message: string; details?: unknown[] } = { code: error.code, message: error.message };
  if (error.errorDetails.length) body.details = error.errorDetails.map(detailJson);
  return JSON.stringify(body);
}

/** Seconds a client should wait, when the error carries a retry hint. */
export function retryAfterSeconds(error: ApiError): number | undefined {
  for (const detail of error.errorDetails) {
    const seconds = detail.debug['retry_after_seconds'];
    if (typeof seconds === 'number') return Math.max(1, Math.ceil(seconds));
  }
  return undefined;
}
