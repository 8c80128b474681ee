// /openapi.json, fetched from a real server, must describe every route of the route table completely
// (operation ids, security, parameters, request and response schemas with examples, error responses), and
// its request examples, sent to that server as written (with the ids earlier examples returned), must work.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { restRoutes, type RestRoute } from '../../src/server/rest/routes.ts';
import { isPublic } from '../../src/accounts/authorization.ts';
import { httpStatusOf } from '../../src/server/errors.ts';
import { call, startTestServer, type TestServer } from '../support/server.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- the document is JSON read from the wire

const spec = suite<{ server: TestServer; doc: Json }>('OpenAPI: /openapi.json describes every REST route, with examples that work');
spec.before(async (ctx) => {
  ctx.server = await startTestServer();
  const res = await call(ctx.server, 'GET', '/openapi.json', { key: null });
  assert.is(res.status, 200, res.text);
  ctx.doc = res.json;
});
spec.after(async (ctx) => {
  await ctx.server?.stop();
});

// ------------------------------------------------------------------ a small JSON Schema validator

/** Every keyword the validator understands; a schema using any other fails the test instead of passing unchecked. */
const KEYWORDS = new Set(['$ref', 'anyOf', 'type', 'enum', 'properties', 'required', 'additionalProperties', 'propertyNames', 'items', 'maxItems',
  'minLength', 'maxLength', 'minimum', 'maximum', 'default', 'description', 'examples', 'contentEncoding']);

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/**
 * Problems of `value` against `schema` (JSON Schema 2020-12, the keywords above). `closed`: an object
 * schema without additionalProperties allows no other fields (so a misspelt field in an example shows).
 */
function problems(doc: Json, schema: Json, value: unknown, at = '$', closed = false): string[] {
  const out: string[] = [];
  for (const keyword of Object.keys(schema)) if (!KEYWORDS.has(keyword)) out.push(`${at}: unsupported keyword ${keyword}`);
  if (schema.$ref) return [...out, ...problems(doc, resolve(doc, schema), value, at, closed)];
  if (schema.anyOf && !schema.anyOf.some((branch: Json) => problems(doc, branch, value, at, closed).length === 0)) out.push(`${at}: matches no anyOf branch`);
  const type = typeOf(value);
  if (schema.type && !(schema.type === type || (schema.type === 'number' && type === 'integer'))) return [...out, `${at}: ${type}, not ${schema.type}`];
  if (schema.enum && !schema.enum.includes(value)) out.push(`${at}: ${JSON.stringify(value)} not in enum`);
  if (typeof value === 'string') {
    const length = [...value].length;
    if (length < (schema.minLength ?? 0) || length > (schema.maxLength ?? Infinity)) out.push(`${at}: length ${length} out of range`);
  }
  if (typeof value === 'number' && (value < (schema.minimum ?? -Infinity) || value > (schema.maximum ?? Infinity))) out.push(`${at}: ${value} out of range`);
  if (Array.isArray(value)) {
    if (value.length > (schema.maxItems ?? Infinity)) out.push(`${at}: more than ${schema.maxItems} items`);
    if (schema.items) value.forEach((item, i) => out.push(...problems(doc, schema.items, item, `${at}[${i}]`, closed)));
  }
  if (type === 'object') {
    const object = value as Record<string, unknown>;
    for (const name of schema.required ?? []) if (!(name in object)) out.push(`${at}.${name}: required`);
    for (const [name, inner] of Object.entries(object)) {
      if (schema.propertyNames) out.push(...problems(doc, schema.propertyNames, name, `${at}.${name} (name)`, closed));
      const property = schema.properties?.[name];
      if (property) out.push(...problems(doc, property, inner, `${at}.${name}`, closed));
      else if (typeof schema.additionalProperties === 'object') out.push(...problems(doc, schema.additionalProperties, inner, `${at}.${name}`, closed));
      else if (schema.additionalProperties === false || (closed && schema.properties && schema.additionalProperties === undefined)) out.push(`${at}.${name}: not a field`);
    }
  }
  return out;
}

/** A `#/components/...` reference, followed (repeatedly); anything else as it is. */
function resolve(doc: Json, node: Json): Json {
  while (node?.$ref) node = node.$ref.slice(2).split('/').reduce((at: Json, key: string) => at?.[key], doc);
  return node;
}

const operationOf = (doc: Json, route: RestRoute): Json => doc.paths[route.path]?.[route.method.toLowerCase()];
const pathNames = (route: RestRoute): string[] => [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
const jsonContent = (doc: Json, node: Json): Json => resolve(doc, node)?.content?.['application/json'];

// ------------------------------------------------------------------ the document

spec('served without a key: OpenAPI 3.1.0 with a bearer security scheme', ({ doc }) => {
  assert.is(doc.openapi, '3.1.0');
  assert.type(doc.info.title, 'string');
  assert.type(doc.info.version, 'string');
  assert.equal(doc.components.securitySchemes.bearer, { ...doc.components.securitySchemes.bearer, type: 'http', scheme: 'bearer' });
});

spec('every route of the route table is there with its method, and nothing else', ({ doc }) => {
  const missing = restRoutes.filter((route) => !operationOf(doc, route)).map((r) => `${r.method} ${r.path}`);
  assert.equal(missing, []);
  for (const path of ['/timelines', '/v1/timelines', '/timeline/{timeline_id}', '/v1/timeline/{timeline_id}', '/api/v1/travel', '/v1/keys', '/v1/login']) {
    assert.ok(doc.paths[path], path);
  }
  const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item as object).map((m) => `${m.toUpperCase()} ${path}`));
  assert.equal(documented.sort(), restRoutes.map((r) => `${r.method} ${r.path}`).sort());
});

spec('every operation has a unique operationId, its summary and tags, and bearer security unless the route is public', ({ doc }) => {
  const ids = new Set<string>();
  const declaredTags = new Set(doc.tags.map((t: Json) => t.name));
  for (const route of restRoutes) {
    const op = operationOf(doc, route);
    const where = `${route.method} ${route.path}`;
    assert.ok(/^\w+$/.test(op.operationId) && !ids.has(op.operationId), `${where}: operationId ${op.operationId}`);
    ids.add(op.operationId);
    assert.is(op.summary, route.summary, where);
    assert.ok(op.tags.length > 0 && op.tags.every((t: string) => declaredTags.has(t)), `${where}: tags`);
    assert.equal(op.security, isPublic(route.rpc) ? [] : [{ bearer: [] }], where);
  }
  assert.equal(operationOf(doc, restRoutes.find((r) => r.path === '/v1/login')!).security, []);
});

spec('every operation answers 200 with a schema and an example that fits it, field names included', ({ doc }) => {
  for (const route of restRoutes) {
    const ok = jsonContent(doc, operationOf(doc, route).responses['200']);
    const where = `${route.method} ${route.path}`;
    assert.ok(ok?.schema && ok.example !== undefined, `${where}: 200 schema and example`);
    assert.equal(problems(doc, ok.schema, ok.example, '$', true), [], where);
  }
});

spec('error responses are the Connect error JSON {code, message, details}, with examples that fit it', ({ doc }) => {
  const error = doc.components.schemas.Error;
  assert.equal(error.required, ['code', 'message']);
  assert.equal(Object.keys(error.properties), ['code', 'message', 'details']);
  for (const route of restRoutes) {
    const op = operationOf(doc, route);
    const statuses = Object.keys(op.responses);
    const where = `${route.method} ${route.path}`;
    for (const needed of ['400', '401', '429', 'default', ...(isPublic(route.rpc) ? [] : ['403', '404']), ...(op.requestBody ? ['413', '415'] : [])]) {
      assert.ok(statuses.includes(needed), `${where}: ${needed}`);
    }
    for (const status of statuses.filter((s) => s !== '200')) {
      const content = jsonContent(doc, op.responses[status]);
      assert.equal(content.schema, { $ref: '#/components/schemas/Error' }, `${where} ${status}`);
      assert.equal(problems(doc, content.schema, content.example, '$', true), [], `${where} ${status}`);
      // 413 and 415 are HTTP's own statuses for a body refused with resource_exhausted / invalid_argument.
      if (/^\d+$/.test(status) && status !== '413' && status !== '415') {
        assert.is(String(httpStatusOf[content.example.code as keyof typeof httpStatusOf]), status, `${where} ${status}`);
      }
    }
    assert.ok(resolve(doc, op.responses['429']).headers['Retry-After'], `${where}: 429 Retry-After`);
  }
});

spec('every route has a request example; the document carries it (path, query, body), valid against each schema', ({ doc }) => {
  for (const route of restRoutes) {
    const op = operationOf(doc, route);
    const where = `${route.method} ${route.path}`;
    assert.ok(route.example, `${where}: example in routes.ts`);
    if (route.method === 'POST') assert.ok(op.requestBody, `${where}: requestBody`);
    const fromDocument: Record<string, unknown> = {};
    for (const param of op.parameters) {
      if (param.example === undefined) continue;
      assert.equal(problems(doc, param.schema, param.example), [], `${where} ${param.name}`);
      fromDocument[param.name] = param.example;
    }
    if (op.requestBody) {
      const body = jsonContent(doc, op.requestBody);
      assert.ok(body.example !== undefined, `${where}: request body example`);
      assert.equal(problems(doc, body.schema, body.example), [], where);
      Object.assign(fromDocument, body.example);
    }
    assert.equal(fromDocument, route.example, `${where}: the example is the one in routes.ts`);
  }
});

spec("the examples carry the spec's values", ({ doc }) => {
  const body = (path: string, method = 'post') => jsonContent(doc, doc.paths[path][method].requestBody).example;
  assert.equal(body('/v1/set-anchor'), {
    timestamp: '2025-01-01T00:00:00.000001Z',
    description: 'New Year anchor',
    accuracy: 'nanosecond',
    environment: { temperature: '22°C', humidity: '45%', em_field_strength: '0.5T' },
    quantum_state: { qubit_configuration: '1010', superposition_stability: '99.9%' },
  });
  assert.equal(body('/v1/create-timeline'), { base_timeline_id: 'primary', description: 'Alternate timeline for testing.' });
  assert.equal(body('/v1/create-parallel-timeline'), { base_timeline_id: 'primary', description: 'Parallel timeline for experiments.', variation: 'No printing press' });
  assert.equal(body('/v1/check-paradox', 'get'), { timeline_id: 'primary' });
  assert.equal(body('/v1/search-events', 'get'), { location: 'Paris, France', time_range: '1789-01-01T00:00:00Z/1799-12-31T23:59:59Z' });
});

spec('path parameters are declared in: path and required; GET and DELETE declare their other fields as query parameters', ({ doc }) => {
  for (const route of restRoutes) {
    const op = operationOf(doc, route);
    const where = `${route.method} ${route.path}`;
    const inPath = op.parameters.filter((p: Json) => p.in === 'path');
    assert.equal(inPath.map((p: Json) => p.name), pathNames(route), `${where}: path parameters`);
    assert.ok(inPath.every((p: Json) => p.required === true && p.schema), `${where}: path parameters required`);
    const query = op.parameters.filter((p: Json) => p.in === 'query').map((p: Json) => p.name);
    if (route.method === 'POST') {
      assert.equal(query, [], where);
      continue;
    }
    const bodyFields = op.requestBody ? Object.keys(jsonContent(doc, op.requestBody).schema.properties) : [];
    assert.equal(query, bodyFields, `${where}: the query parameters are the body's fields`);
    for (const name of Object.keys(route.example ?? {})) assert.ok(query.includes(name) || pathNames(route).includes(name), `${where}: ${name}`);
  }
  const search = operationOf(doc, restRoutes.find((r) => r.path === '/v1/search-events')!);
  assert.equal(search.parameters.map((p: Json) => `${p.in}:${p.name}`), ['query:location', 'query:time_range', 'query:timeline_id', 'query:page_size', 'query:page_token']);
});

// ------------------------------------------------------------------ the examples, live

/** `anc_REPLACE_WITH_anchor_id` → the anchor_id an earlier example's response returned. */
function substitute(value: unknown, seen: Map<string, string>): unknown {
  return JSON.parse(JSON.stringify(value), (_key, inner) =>
    typeof inner === 'string' ? inner.replace(/^[a-z]+_REPLACE_WITH_(\w+)$/, (whole, field: string) => seen.get(field) ?? whole) : inner,
  );
}

/** Ids at any depth of an answer (`saved_request.id`), and the session token for logout; never a page token. */
function harvestIds(answer: unknown, seen: Map<string, string>): void {
  if (answer === null || typeof answer !== 'object') return;
  for (const [field, value] of Object.entries(answer)) {
    const isId = field === 'id' || field === 'token' || field === 'share_token' || field.endsWith('_id');
    if (typeof value === 'string' && value !== '' && value !== 'primary' && isId) seen.set(field, value);
    else if (!Array.isArray(value)) harvestIds(value, seen);
  }
}

/** The request a client builds from the document alone: path and query from parameter examples, body from the body example. */
function requestFromDocument(doc: Json, route: RestRoute, seen: Map<string, string>): { path: string; query: URLSearchParams; body: unknown } {
  const op = operationOf(doc, route);
  let path = route.path;
  const query = new URLSearchParams();
  for (const param of op.parameters) {
    if (param.example === undefined) continue;
    const value = String(substitute(param.example, seen));
    if (param.in === 'path') path = path.replace(`{${param.name}}`, encodeURIComponent(value));
    else query.set(param.name, value);
  }
  return { path, query, body: op.requestBody ? substitute(jsonContent(doc, op.requestBody).example, seen) : undefined };
}

/** An answer as JSON text without the fields that differ from one call to the next (timings, last use). */
const stable = (answer: unknown): string =>
  JSON.stringify(answer, (key, value: unknown) => (key === 'duration_ms' || key === 'last_used_at' ? undefined : value));

spec('every request example, sent to the live server as its route\'s request, is answered 200 with a response that fits the schema (a GET the same in both its forms)', async ({ server, doc }) => {
  // Table order, which is a story (manipulate then revert, create a key then revoke it, ...), except that the
  // account the login example names is created first. Ids come from earlier responses; logout uses the login's token.
  const order = [...restRoutes].sort((a, b) => Number(!a.rpc.endsWith('.CreateAccount')) - Number(!b.rpc.endsWith('.CreateAccount')));
  const seen = new Map<string, string>();
  const wrong: string[] = [];
  for (const route of order) {
    const { path, query, body } = requestFromDocument(doc, route, seen);
    const key = route.rpc.endsWith('.Logout') ? seen.get('token') : undefined;
    const attempts = route.method === 'GET' && query.size > 0
      ? [{ path: `${path}?${query}`, body: undefined }, { path, body }] // both forms GET takes
      : [{ path: query.size ? `${path}?${query}` : path, body }];
    const answers: unknown[] = [];
    for (const attempt of attempts) {
      const res = await call(server, route.method, attempt.path, { body: attempt.body, key });
      answers.push(res.json);
      const where = `${route.method} ${attempt.path}${attempt.body ? ' ' + JSON.stringify(attempt.body) : ''}`;
      if (res.status !== 200) {
        wrong.push(`${where}: ${res.status} ${res.text}`);
        continue;
      }
      const schema = jsonContent(doc, operationOf(doc, route).responses['200']).schema;
      for (const problem of problems(doc, schema, res.json, '$', true)) wrong.push(`${where}: response ${problem}`);
      harvestIds(res.json, seen);
    }
    if (answers.length === 2 && stable(answers[0]) !== stable(answers[1])) {
      wrong.push(`${route.method} ${path}: the query-string and JSON-body forms answered differently: ${JSON.stringify(answers)}`);
    }
  }
  assert.equal(wrong, []);
});

spec.run();
