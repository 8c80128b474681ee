import { z } from 'zod';
import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';
import type { OperationTable } from '../../api/operation.ts';
import type { RestRoute } from './routes.ts';
import { rpcMethods } from '../connect/services.ts';

/**
 * OpenAPI 3.1 for the REST face, derived from what actually serves it: the route table (paths, examples),
 * each operation's zod schema (requests, as validated) and the RPC's response message (responses).
 */
export function buildOpenApi(routes: readonly RestRoute[], operations: OperationTable, version: string): object {
  const schemas: Record<string, object> = {
    Error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', examples: ['invalid_argument'] },
        message: { type: 'string', examples: ['time_range: end 1700-01-01T00:00:00Z is before start 1800-01-01T00:00:00Z'] },
        details: { type: 'array', items: { type: 'object' } },
      },
    },
  };
  const paths: Record<string, Record<string, object>> = {};
  for (const route of routes) {
    const method = rpcMethods.get(route.rpc);
    const operation = operations.get(route.rpc);
    const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const requestSchema = operation ? z.toJSONSchema(operation.input, { io: 'input', unrepresentable: 'any' }) : { type: 'object' };
    const entry: Record<string, unknown> = {
      operationId: route.rpc.split('.').slice(-2).join('_') + (route.path.startsWith('/v1/timeline') ? '_v1' : ''),
      summary: route.summary,
      tags: [route.rpc.split('.')[2]],
      security: [{ bearer: [] }],
      parameters: pathParams.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      responses: {
        '200': {
          description: 'OK',
          content: { 'application/json': { schema: method ? messageRef(method.output, schemas) : { type: 'object' } } },
        },
        default: { description: 'Error (Connect error JSON)', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
    };
    if (route.method !== 'DELETE' && !(route.method === 'GET' && pathParams.length)) {
      entry['requestBody'] = {
        required: false,
        description: route.method === 'GET' ? 'GET takes a JSON body (as documented) or the same fields as query parameters.' : undefined,
        content: { 'application/json': { schema: requestSchema, ...(route.example ? { example: route.example } : {}) } },
      };
    }
    (paths[route.path] ??= {})[route.method.toLowerCase()] = entry;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'tms: Time-Manipulation Service', version },
    components: { schemas, securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    paths,
  };
}

function messageRef(message: DescMessage, schemas: Record<string, object>): object {
  const name = message.typeName;
  if (!schemas[name]) {
    schemas[name] = {}; // placeholder first: messages may refer to themselves
    const properties: Record<string, object> = {};
    for (const field of message.fields) properties[field.name] = fieldSchema(field, schemas);
    schemas[name] = { type: 'object', properties };
  }
  return { $ref: `#/components/schemas/${name}` };
}

function fieldSchema(field: DescField, schemas: Record<string, object>): object {
  switch (field.fieldKind) {
    case 'scalar':
      return scalarSchema(field.scalar);
    case 'enum':
      return { type: 'string', enum: field.enum.values.map((v) => v.name) };
    case 'message':
      return messageRef(field.message, schemas);
    case 'list':
      return {
        type: 'array',
        items:
          field.listKind === 'message'
            ? messageRef(field.message, schemas)
            : field.listKind === 'enum'
              ? { type: 'string' }
              : scalarSchema(field.scalar),
      };
    case 'map':
      return {
        type: 'object',
        additionalProperties: field.mapKind === 'message' ? messageRef(field.message, schemas) : field.mapKind === 'enum' ? { type: 'string' } : scalarSchema(field.scalar),
      };
  }
}

function scalarSchema(scalar: ScalarType): object {
  switch (scalar) {
    case ScalarType.STRING:
      return { type: 'string' };
    case ScalarType.BOOL:
      return { type: 'boolean' };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return { type: 'number' };
    case ScalarType.INT32:
    case ScalarType.UINT32:
    case ScalarType.SINT32:
    case ScalarType.FIXED32:
    case ScalarType.SFIXED32:
      return { type: 'integer' };
    case ScalarType.BYTES:
      return { type: 'string', contentEncoding: 'base64' };
    default:
      return { type: 'string', description: '64-bit integer as a decimal string' };
  }
}
