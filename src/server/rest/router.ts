import type { HttpMethod, RestRoute } from './routes.ts';

export type RouteMatch =
  /** `params` as they appear in the path, still percent-escaped: the REST handler reads them with the query string. */
  | { kind: 'found'; route: RestRoute; params: Record<string, string> }
  | { kind: 'wrong_method'; allow: string[] }
  | { kind: 'none' };

interface Pattern {
  segments: string[];
  byMethod: Map<string, RestRoute>;
}

/** Exact paths are one Map lookup (the hot path); templated paths are matched segment by segment. */
export class RestRouter {
  private readonly exact = new Map<string, Map<string, RestRoute>>();
  private readonly patterns: Pattern[] = [];

  constructor(routes: readonly RestRoute[]) {
    for (const route of routes) {
      if (route.path.includes('{')) {
        const segments = route.path.split('/');
        let pattern = this.patterns.find((p) => p.segments.join('/') === route.path);
        if (!pattern) this.patterns.push((pattern = { segments, byMethod: new Map() }));
        pattern.byMethod.set(route.method, route);
      } else {
        const byMethod = this.exact.get(route.path) ?? new Map<string, RestRoute>();
        byMethod.set(route.method, route);
        this.exact.set(route.path, byMethod);
      }
    }
  }

  match(method: string, path: string): RouteMatch {
    const byMethod = this.exact.get(path);
    if (byMethod) return pick(byMethod, method, {});
    const segments = path.split('/');
    for (const pattern of this.patterns) {
      const params = matchSegments(pattern.segments, segments);
      if (params) return pick(pattern.byMethod, method, params);
    }
    return { kind: 'none' };
  }
}

function pick(byMethod: Map<string, RestRoute>, method: string, params: Record<string, string>): RouteMatch {
  const route = byMethod.get(method === 'HEAD' ? 'GET' : method);
  if (route) return { kind: 'found', route, params };
  // A GET route answers HEAD too.
  return { kind: 'wrong_method', allow: [...byMethod.keys()].flatMap((allowed) => (allowed === 'GET' ? ['GET', 'HEAD'] : [allowed])) as HttpMethod[] };
}

function matchSegments(template: string[], actual: string[]): Record<string, string> | undefined {
  if (template.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < template.length; i++) {
    const t = template[i]!;
    const a = actual[i]!;
    if (t.startsWith('{') && t.endsWith('}')) {
      if (!a) return undefined;
      params[t.slice(1, -1)] = a;
    } else if (t !== a) {
      return undefined;
    }
  }
  return params;
}
