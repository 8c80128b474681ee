import type { JsonSchema } from './json-schema.ts';
import { services } from './services.ts';

/** One thing the console can send: a REST route or an RPC. */
export interface OperationEntry {
  id: string;
  kind: 'rest' | 'rpc';
  /** Group in the list: the service name (`EventService`). */
  service: string;
  /** `GET /v1/search-events` or `SearchEvents`. */
  title: string;
  summary: string;
  method: string;
  /** `/v1/timeline/{timeline_id}`, or `/tms.v1.EventService/SearchEvents`. */
  pathTemplate: string;
  pathParams: string[];
  /** Every field of the documented example, path parameters included. */
  example: Record<string, unknown>;
  /** Body fields as the server validates them (path parameters excluded for REST). */
  schema: JsonSchema | undefined;
  requiresAuth: boolean;
  /** Fully qualified RPC name (`tms.v1.EventService.SearchEvents`). */
  rpc: string;
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the OpenAPI document as read from the wire

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

/**
 * The operation list, from one source: the server's own OpenAPI document (REST routes, their examples and
 * schemas) and the generated service descriptors (RPCs). An RPC takes the example and schema of the route
 * that names it, with path parameters as ordinary fields.
 */
export function buildOperations(doc: Json): OperationEntry[] {
  const rest: OperationEntry[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const rpc = String(op['x-rpc'] ?? '');
      const parameters: Json[] = op.parameters ?? [];
      const body = op.requestBody?.content?.['application/json'];
      const example: Record<string, unknown> = {};
      for (const parameter of parameters) if (parameter.example !== undefined) example[parameter.name] = parameter.example;
      Object.assign(example, body?.example ?? {});
      const schema: JsonSchema | undefined = body?.schema ?? querySchema(parameters);
      rest.push({
        id: `rest:${method.toUpperCase()} ${path}`,
        kind: 'rest',
        service: rpc.split('.')[2] ?? String(op.tags?.[0] ?? 'Other'),
        title: `${method.toUpperCase()} ${path}`,
        summary: String(op.summary ?? ''),
        method: method.toUpperCase(),
        pathTemplate: path,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => String(p.name)),
        example,
        schema,
        requiresAuth: Array.isArray(op.security) ? op.security.length > 0 : true,
        rpc,
      });
    }
  }
  const rpcs: OperationEntry[] = [];
  for (const service of services) {
    for (const method of service.methods) {
      const rpc = `${service.typeName}.${method.name}`;
      const route = rest.find((entry) => entry.rpc === rpc);
      rpcs.push({
        id: `rpc:${rpc}`,
        kind: 'rpc',
        service: service.name,
        title: method.name,
        summary: route?.summary ?? '',
        method: 'POST',
        pathTemplate: `/${service.typeName}/${method.name}`,
        pathParams: [],
        example: route?.example ?? {},
        schema: route ? withPathFields(route, doc) : undefined,
        requiresAuth: route?.requiresAuth ?? true,
        rpc,
      });
    }
  }
  return [...rest, ...rpcs];
}

function querySchema(parameters: Json[]): JsonSchema | undefined {
  const query = parameters.filter((p) => p.in === 'query');
  if (query.length === 0) return undefined;
  return { type: 'object', additionalProperties: false, properties: Object.fromEntries(query.map((p) => [p.name, p.schema ?? {}])) };
}

/** An RPC message holds a route's path parameters as fields. */
function withPathFields(route: OperationEntry, doc: Json): JsonSchema | undefined {
  if (route.pathParams.length === 0) return route.schema;
  const op = doc.paths[route.pathTemplate][route.method.toLowerCase()] as Json;
  const pathProps = Object.fromEntries((op.parameters as Json[]).filter((p) => p.in === 'path').map((p) => [p.name, p.schema ?? {}]));
  const base = route.schema ?? { type: 'object', additionalProperties: false, properties: {} };
  return { ...base, properties: { ...base.properties, ...pathProps }, required: [...(base.required ?? []), ...route.pathParams] };
}

/** Case-insensitive match on title, service, summary and path. */
export function matchesFilter(entry: OperationEntry, filter: string): boolean {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const text = `${entry.title} ${entry.service} ${entry.summary} ${entry.pathTemplate} ${entry.kind === 'rpc' ? 'rpc connect grpc' : 'rest http'}`.toLowerCase();
  return words.every((word) => text.includes(word));
}
