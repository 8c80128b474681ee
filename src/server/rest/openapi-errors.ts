import type { Principal } from '../../accounts/principal.ts';
import { authorize } from '../../accounts/authorization.ts';
import { ApiError, invalidArgument, notFound } from '../../domain/errors.ts';
import { FieldViolationSchema, RetryInfoSchema } from '../../gen/tms/v1/error_details_pb.ts';
import { ParadoxSchema } from '../../gen/tms/v1/paradox_pb.ts';
import { bodyTooLarge, errorBody, httpStatusOf, toApiError, unsupportedContentType } from '../errors.ts';
import { messageRef, type SchemaComponents } from './openapi-messages.ts';

/**
 * The error half of /openapi.json: the Connect error JSON schema every error body has, and one reusable
 * response per HTTP status a REST route can answer with. Each example is the body the server sends for it,
 * made by the same code (errorBody) from the same kind of error.
 */

const ERROR_REF = { $ref: '#/components/schemas/Error' };

export function errorSchemas(schemas: SchemaComponents): void {
  schemas['ErrorDetail'] = {
    type: 'object',
    description: 'A typed error detail, as Connect sends it: the protobuf message name, its bytes and the same as JSON.',
    required: ['type', 'debug'],
    properties: {
      type: { type: 'string', description: 'Fully qualified message name of `debug`.', examples: ['tms.v1.FieldViolation'] },
      value: { type: 'string', contentEncoding: 'base64', description: 'The message in protobuf binary, base64 without padding.' },
      debug: { anyOf: [FieldViolationSchema, ParadoxSchema, RetryInfoSchema].map((message) => messageRef(message, schemas)) },
    },
  };
  schemas['Error'] = {
    type: 'object',
    description: 'The Connect error JSON: every error of every route has this body.',
    required: ['code', 'message'],
    properties: {
      code: { type: 'string', enum: Object.keys(httpStatusOf) },
      message: { type: 'string', description: 'The first problem, naming the field it is about (`field: problem`).' },
      details: { type: 'array', items: { $ref: '#/components/schemas/ErrorDetail' } },
    },
  };
}

const READ_ONLY: Principal = { account: 'reader', scopes: new Set(['read']), credentialId: 'key_0123456789abcdef', kind: 'key' };

function thrownBy(action: () => void): ApiError {
  try {
    action();
  } catch (error) {
    return toApiError(error);
  }
  throw new Error('expected an error');
}

const tooManyRequests = new ApiError('resource_exhausted', 'too many failed logins; try again in 60 seconds', [
  { type: 'tms.v1.RetryInfo', debug: { retry_after_seconds: 60 } },
]);

/** Reusable responses by name: status, when it happens, and the error it is an example of. */
const ERROR_RESPONSES: Record<string, { status: string; description: string; error: ApiError; headers?: object }> = {
  BadRequest: {
    status: '400',
    description:
      'invalid_argument (a bad, missing or unknown field; bad JSON, a member named twice, bytes that are not UTF-8, an unpaired surrogate; two Authorization headers) or failed_precondition (e.g. a refused safety check).',
    error: invalidArgument('timelin_id', 'unknown field'),
  },
  Unauthenticated: {
    status: '401',
    description: 'unauthenticated: no, unknown, revoked or expired credential (login: wrong username or password).',
    error: new ApiError('unauthenticated', 'missing Authorization: Bearer <API_KEY> header'),
    headers: { 'WWW-Authenticate': { description: 'The scheme the API takes: Bearer realm="tms".', schema: { type: 'string' } } },
  },
  PermissionDenied: {
    status: '403',
    description: "permission_denied: the credential lacks the route's scope.",
    error: thrownBy(() => authorize(READ_ONLY, 'tms.v1.TimelineService.DeleteTimeline')),
  },
  NotFound: {
    status: '404',
    description: 'not_found: no such record, or one that belongs to another account.',
    error: notFound('timeline', 'tl_does_not_exist'),
  },
  PayloadTooLarge: {
    status: '413',
    description: 'resource_exhausted: the body is over TMS_BODY_LIMIT_BYTES.',
    error: bodyTooLarge(1048576),
  },
  UnsupportedMediaType: {
    status: '415',
    description: 'invalid_argument: the body is not application/json, or is sent with a Content-Encoding (bodies are read uncompressed).',
    error: unsupportedContentType('application/json', 'text/plain'),
  },
  TooManyRequests: {
    status: '429',
    description: 'resource_exhausted: rate limit, login lockout, or too many password checks already waiting; wait Retry-After seconds.',
    error: tooManyRequests,
    headers: { 'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 1 } } },
  },
  DeadlineExceeded: {
    status: '504',
    description: 'deadline_exceeded: not finished within TMS_REQUEST_TIMEOUT_MS.',
    error: new ApiError('deadline_exceeded', 'request: not finished within 30000 ms (TMS_REQUEST_TIMEOUT_MS); a write may still complete after this answer, so read before retrying one'),
  },
  InternalError: {
    status: 'default',
    description: 'Any other error (internal, unavailable, ...), in the same shape.',
    error: toApiError(new Error('a bug')),
  },
};

export function errorResponseComponents(): Record<string, object> {
  return Object.fromEntries(
    Object.entries(ERROR_RESPONSES).map(([name, { description, error, headers }]) => [
      name,
      { description, ...(headers && { headers }), content: { 'application/json': { schema: ERROR_REF, example: JSON.parse(errorBody(error)) } } },
    ]),
  );
}

/** The error responses of one operation, by status, as references to the reusable ones. */
export function errorResponses(route: { public: boolean; body: boolean }): Record<string, object> {
  const names = [
    'BadRequest',
    'Unauthenticated',
    ...(route.public ? [] : ['PermissionDenied', 'NotFound']),
    ...(route.body ? ['PayloadTooLarge', 'UnsupportedMediaType'] : []),
    'TooManyRequests',
    'DeadlineExceeded',
    'InternalError',
  ];
  return Object.fromEntries(names.map((name) => [ERROR_RESPONSES[name]!.status, { $ref: `#/components/responses/${name}` }]));
}

