import fc from 'fast-check';
import { restRoutes, type RestRoute } from '../../src/server/rest/routes.ts';

/** One HTTP request as the fuzzer sends it: any method, path, headers and raw body bytes. */
export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  /** What was done to the valid example, for the failure report. */
  mutation: string;
}

/** Ids the examples' placeholders stand for, made by the test's fixtures. */
export type Fixtures = Record<string, string>;

const WEIRD_VALUES: fc.Arbitrary<unknown>[] = [
  fc.integer(),
  fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -1, 0, 2 ** 31, 1.5),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.jsonValue(), { maxLength: 5 }),
  fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 5 }),
  fc.string({ unit: 'binary', maxLength: 50 }),
  fc.constantFrom('', ' ', '\u0000', '\ud800', '💥'.repeat(300), '../../etc/passwd', '<script>x</script>', '%00', 'x'.repeat(20_000)),
  fc.constantFrom('-999999999-01-01T00:00:00Z/P1Y', '2025-13-45T25:61:61Z', 'P99999999999Y/2025-01-01T00:00:00Z', '1789-07-14T10:00:00+02:00'),
];

const weirdValue = fc.oneof(...WEIRD_VALUES);

/** `tl_REPLACE_WITH_timeline_id` → the fixture's timeline id. */
function fill(value: unknown, fixtures: Fixtures): unknown {
  return JSON.parse(JSON.stringify(value), (_key, inner: unknown) =>
    typeof inner === 'string' ? inner.replace(/^[a-z]+_REPLACE_WITH_(\w+)$/, (whole, field: string) => fixtures[field] ?? whole) : inner,
  );
}

function pathOf(route: RestRoute, fields: Record<string, unknown>): { path: string; rest: Record<string, unknown> } {
  const rest = { ...fields };
  const path = route.path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    const value = rest[name];
    delete rest[name];
    // A URL carries UTF-8: lone surrogates become U+FFFD, as a client's encoder makes them.
    return encodeURIComponent(Buffer.from(typeof value === 'string' ? value : (JSON.stringify(value) ?? '')).toString());
  });
  return { path, rest };
}

/** `{ a: { b: [ ... ] } }` nested `depth` times, as JSON text (deeper than any parser's patience). */
const deeplyNested = (depth: number) => `{"a":${'['.repeat(depth)}1${']'.repeat(depth)}}`;

type Mutation = (fields: Record<string, unknown>) => { fields?: Record<string, unknown>; raw?: Buffer; label: string };

function mutations(): fc.Arbitrary<Mutation> {
  return fc.oneof(
    fc.constant<Mutation>(() => ({ label: 'none' })),
    fc.tuple(fc.nat(), weirdValue).map(([pick, value]): Mutation => (fields) => {
      const names = Object.keys(fields);
      if (names.length === 0) return { fields: { unexpected: value }, label: `unexpected=${JSON.stringify(value)?.slice(0, 60)}` };
      const name = names[pick % names.length]!;
      return { fields: { ...fields, [name]: value }, label: `${name}=${JSON.stringify(value)?.slice(0, 60)}` };
    }),
    fc.nat().map((pick): Mutation => (fields) => {
      const names = Object.keys(fields);
      const name = names[pick % Math.max(names.length, 1)];
      const rest = { ...fields };
      if (name !== undefined) delete rest[name];
      return { fields: rest, label: `without ${name}` };
    }),
    fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), weirdValue).map(([name, value]): Mutation => (fields) => ({ fields: { ...fields, [name]: value }, label: `extra ${name}` })),
    fc.nat({ max: 1000 }).map((cut): Mutation => (fields) => {
      const text = JSON.stringify(fields);
      return { raw: Buffer.from(text.slice(0, cut % Math.max(text.length, 1))), label: `truncated at ${cut % Math.max(text.length, 1)}` };
    }),
    fc.constant<Mutation>((fields) => {
      const text = Buffer.from(JSON.stringify(fields));
      return { raw: Buffer.concat([text.subarray(0, 2), Buffer.from([0xff, 0xfe, 0xc3]), text.subarray(2)]), label: 'bad UTF-8' };
    }),
    fc.constantFrom(100, 10_000, 100_000).map((depth): Mutation => () => ({ raw: Buffer.from(deeplyNested(depth)), label: `nested ${depth} deep` })),
    fc.constant<Mutation>(() => ({ raw: Buffer.alloc(2 * 1024 * 1024, 0x20), label: 'oversized (2 MiB)' })),
    fc.constantFrom('[1,2]', '42', '"text"', 'null', 'true', '{', '}{', '\u0000').map((text): Mutation => () => ({ raw: Buffer.from(text), label: `body ${JSON.stringify(text)}` })),
  );
}

/** Mostly null (keep the example's own), now and then one of `arbitrary`'s values. */
const rarely = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND', 'FOO'];
const CONTENT_TYPES = ['application/json', 'text/plain', 'application/json; charset=latin1', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', ''];

/** A request built from a route's (or its RPC's) documented example, then mutated. */
export function fuzzRequest(fixtures: Fixtures, adminKey: string): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      route: fc.constantFrom(...restRoutes),
      asRpc: fc.boolean(),
      mutation: mutations(),
      method: rarely(fc.constantFrom(...METHODS)),
      contentType: rarely(fc.constantFrom(...CONTENT_TYPES)),
      auth: rarely(fc.constantFrom('', 'Bearer', 'Bearer tms_key_0000000000000000_' + 'A'.repeat(43), 'Basic YWRtaW46YWRtaW4=', 'Bearer  ' + adminKey + ' x')),
      query: rarely(fc.constantFrom('page_size=-1', 'page_size=1e9', 'page_token=%ZZ', 'location=a&location=b', 'time_range=', '%E0%A4%A')),
    })
    .map(({ route, asRpc, mutation, method, contentType, auth, query }) => {
      const example = fill(route.example ?? {}, fixtures) as Record<string, unknown>;
      const changed = mutation(example);
      const fields = changed.fields ?? example;
      const rpcPath = `/${route.rpc.split('.').slice(0, 3).join('.')}/${route.rpc.split('.')[3]}`;
      const target = asRpc ? { path: rpcPath, rest: fields } : pathOf(route, fields);
      const sendsQuery = !asRpc && (route.method === 'GET' || route.method === 'DELETE') && changed.raw === undefined;
      const queryString = sendsQuery
        ? new URLSearchParams(Object.entries(target.rest).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString()
        : '';
      const extra = query ?? '';
      const path = target.path + (queryString || extra ? `?${[queryString, extra].filter(Boolean).join('&')}` : '');
      const body = changed.raw ?? (sendsQuery ? undefined : Buffer.from(JSON.stringify(target.rest)));
      const headers: Record<string, string> = { authorization: auth ?? `Bearer ${adminKey}` };
      const type = contentType ?? 'application/json';
      if (body !== undefined && type) headers['content-type'] = type;
      return {
        method: method ?? (asRpc ? 'POST' : route.method),
        path,
        headers,
        body,
        mutation: `${asRpc ? 'rpc' : 'rest'} ${changed.label}${method ? ` method ${method}` : ''}${contentType !== null ? ` type ${contentType}` : ''}${auth !== null ? ` auth ${JSON.stringify(auth).slice(0, 30)}` : ''}${query ? ` query ${query}` : ''}`,
      };
    });
}
