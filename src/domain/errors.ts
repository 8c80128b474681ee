/** Error codes are Connect's (the same names gRPC uses, in snake_case); every face maps them one way. */
export type ErrorCode =
  | 'canceled'
  | 'unknown'
  | 'invalid_argument'
  | 'deadline_exceeded'
  | 'not_found'
  | 'already_exists'
  | 'permission_denied'
  | 'resource_exhausted'
  | 'failed_precondition'
  | 'aborted'
  | 'out_of_range'
  | 'unimplemented'
  | 'internal'
  | 'unavailable'
  | 'data_loss'
  | 'unauthenticated';

/**
 * Why a request was refused, where its code alone does not say: each face answers it in its own terms
 * (REST and Connect with HTTP's 413, 415 and 405; gRPC with the code).
 */
export type ErrorReason = 'body_too_large' | 'unsupported_content_type' | 'method_not_allowed' | 'no_such_path';

/** Structured extra information attached to an error (e.g. each paradox that failed a safety check). */
export interface ErrorDetail {
  /** Fully qualified protobuf message name describing `debug`, e.g. `tms.v1.Paradox`. */
  type: string;
  debug: Record<string, unknown>;
}

/** The codes of the server's own failures, the only errors whose stack trace anyone reads. */
const SERVER_FAULTS: ReadonlySet<ErrorCode> = new Set(['unknown', 'internal', 'data_loss']);

/**
 * The one error type that domain code throws. Faces turn it into Connect error JSON (REST, Connect),
 * a gRPC status (gRPC) or a console message; nothing else about it differs between faces.
 *
 * Only a server fault captures a stack trace. A refusal (a bad field, a wrong key, a rate limit) is answered and
 * never logged with a stack, and capturing one cost more than the rest of a refusal's work (docs/performance.md).
 */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Not `details`: uvu reads an error's `details` as a string when it reports a failing test, and stops the file. */
    readonly errorDetails: ErrorDetail[] = [],
    readonly reason?: ErrorReason,
  ) {
    const stackFrames = Error.stackTraceLimit;
    if (!SERVER_FAULTS.has(code)) Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackFrames;
    this.name = 'ApiError';
  }
}

export const fieldViolation = (field: string, description: string): ErrorDetail => ({ type: 'tms.v1.FieldViolation', debug: { field, description } });

/** A bad field: named in the message and, as every field problem is, a `tms.v1.FieldViolation` detail. */
export const invalidArgument = (field: string, problem: string): ApiError =>
  new ApiError('invalid_argument', `${field}: ${problem}`, [fieldViolation(field, problem)]);

export const notFound = (what: string, id: string): ApiError => new ApiError('not_found', `${what} ${JSON.stringify(id)} not found`);

export const notAManipulation = (eventId: string): ApiError =>
  new ApiError('failed_precondition', `event "${eventId}" is not a manipulation; only an event created by manipulate-event can be reverted`);
