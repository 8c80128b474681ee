import { ConnectError, Code } from '@connectrpc/connect';
import { ApiError, type ErrorCode } from '../domain/errors.ts';
import { detailJson, typedDetail } from './error-details.ts';

/** The Connect protocol's code → HTTP status table. */
export const httpStatusOf: Record<ErrorCode, number> = {
  canceled: 499,
  unknown: 500,
  invalid_argument: 400,
  deadline_exceeded: 504,
  not_found: 404,
  already_exists: 409,
  permission_denied: 403,
  resource_exhausted: 429,
  failed_precondition: 400,
  aborted: 409,
  out_of_range: 400,
  unimplemented: 501,
  internal: 500,
  unavailable: 503,
  data_loss: 500,
  unauthenticated: 401,
};

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

/** Anything thrown while serving becomes an ApiError; unexpected errors never leak their text. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof ConnectError) {
    const code = (Object.entries(connectCodeOf).find(([, c]) => c === error.code)?.[0] ?? 'unknown') as ErrorCode;
    return new ApiError(code, error.rawMessage);
  }
  return new ApiError('internal', 'internal error (see the server log for this request id)');
}

/** A retry hint also goes out as `retry-after` metadata (seconds): a gRPC trailer, a Connect response header. */
export function toConnectError(error: ApiError): ConnectError {
  const retryAfter = retryAfterSeconds(error);
  const metadata = retryAfter === undefined ? undefined : { 'retry-after': String(retryAfter) };
  const details = error.details.map(typedDetail).filter((detail) => detail !== undefined);
  return new ConnectError(error.message, connectCodeOf[error.code], metadata, details, error);
}

/** The Connect error JSON, the one error body every REST response uses. */
export function errorBody(error: ApiError): string {
  const body: { code: string; message: string; details?: unknown[] } = { code: error.code, message: error.message };
  if (error.details.length) body.details = error.details.map(detailJson);
  return JSON.stringify(body);
}

/** Seconds a client should wait, when the error carries a retry hint. */
export function retryAfterSeconds(error: ApiError): number | undefined {
  for (const detail of error.details) {
    const seconds = detail.debug['retry_after_seconds'];
    if (typeof seconds === 'number') return Math.max(1, Math.ceil(seconds));
  }
  return undefined;
}
