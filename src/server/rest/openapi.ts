import { z } from 'zod';
import type { OperationTable } from '../../api/operation.ts';
import type { RestRoute } from './routes.ts';
import { isPublic } from '../../accounts/authorization.ts';
import { rpcMethods } from '../connect/services.ts';
import { messageRef, type SchemaComponents } from './openapi-messages.ts';
import { errorResponseComponents, errorResponses, errorSchemas } from './openapi-errors.ts';
import { responseExamples } from './response-examples.ts';

/**
 * OpenAPI 3.1 for the REST face, derived from what actually serves it: the route table (paths, summaries,
 * request examples), each operation's zod schema (requests, as validated), the RPC's response message
 * (responses, with response-examples.ts) and the authorization table (which routes need a bearer).
 */
export function buildOpenApi(routes: readonly RestRoute[], operations: OperationTable, version: string): object {
  const schemas: SchemaComponents = {};
  errorSchemas(schemas);
  const paths: Record<string, Record<string, object>> = {};
  for (const route of routes) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operationObject(route, operations, schemas);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'tms: Time-Manipulation Service',
      version,
      description:
        'JSON REST face of tms. GET routes take their fields as a JSON body (as documented) or as query parameters; ' +
        'the same services are served over gRPC, gRPC-Web and Connect (package tms.v1). Every error is the Connect error JSON.',
    },
    tags: [...new Set(routes.map(tagOf))].map((name) => ({ name })),
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas,
      responses: errorResponseComponents(),
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key (tms_key_...) or a session token from POST /v1/login.' } },
    },
  };
}

type JsonSchema = { properties?: Record<string, object>; required?: string[]; [keyword: string]: unknown };

const tagOf = (route: RestRoute): string => route.rpc.split('.')[2]!;

function operationObject(route: RestRoute, operations: OperationTable, schemas: SchemaComponents): object {
  const operation = operations.get(route.rpc);
  const method = rpcMethods.get(route.rpc);
  const input = operation ? requestSchema(operation.input) : { type: 'object' };
  const example = route.example ?? {};
  const pathNames = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const fieldsFromQuery = route.method === 'GET' || route.method === 'DELETE';
  const bodyNames = Object.keys(input.properties ?? {}).filter((name) => !pathNames.includes(name));
  // POST always reads a body; GET and DELETE do when they have fields beyond the path.
  const takesBody = !fieldsFromQuery || bodyNames.length > 0;
  const parameter = (name: string, where: 'path' | 'query') => ({
    name,
    in: where,
    required: where === 'path',
    ...(where === 'query' && { description: 'Or the same field in the JSON body.' }),
    schema: input.properties?.[name] ?? { type: 'string' },
    ...(name in example && { example: example[name] }),
  });
  const publicRoute = isPublic(route.rpc);
  return {
    operationId: operationId(route),
    summary: route.summary,
    // The RPC this route names: the console pairs each route with its gRPC/Connect method by it.
    'x-rpc': route.rpc,
    tags: [tagOf(route)],
    security: publicRoute ? [] : [{ bearer: [] }],
    parameters: [...pathNames.map((name) => parameter(name, 'path')), ...(fieldsFromQuery ? bodyNames.map((name) => parameter(name, 'query')) : [])],
    ...(takesBody && { requestBody: requestBody(route, input, pathNames, example) }),
    responses: {
      '200': {
        description: 'OK',
        content: {
          'application/json': {
            schema: method ? messageRef(method.output, schemas) : { type: 'object' },
            ...(responseExamples[route.rpc] && { example: responseExamples[route.rpc] }),
          },
        },
      },
      ...errorResponses({ public: publicRoute, body: takesBody }),
    },
  };
}

/** The request as validated, as JSON Schema (what a client may send, defaults and all). */
function requestSchema(input: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return schema;
}

function requestBody(route: RestRoute, input: JsonSchema, pathNames: string[], example: Record<string, unknown>): object {
  const without = <T>(entries: Record<string, T>) => Object.fromEntries(Object.entries(entries).filter(([name]) => !pathNames.includes(name)));
  const required = (input.required ?? []).filter((name) => !pathNames.includes(name));
  const schema: JsonSchema = { ...input, properties: without(input.properties ?? {}), required };
  if (required.length === 0) delete schema.required;
  const bodyOptional = route.method !== 'POST' && route.method !== 'PUT';
  return {
    required: !bodyOptional && required.length > 0,
    ...(bodyOptional && { description: `${route.method} takes a JSON body (as documented) or the same fields as query parameters.` }),
    content: { 'application/json': { schema, ...(route.example && { example: without(example) }) } },
  };
}

/** `TimelineService_ListTimelines`; the /v1 copies of the timeline collection routes end in `_v1`. */
function operationId(route: RestRoute): string {
  if (route.operationId) return route.operationId;
  return route.rpc.split('.').slice(-2).join('_') + (route.path.startsWith('/v1/timeline') ? '_v1' : '');
}
