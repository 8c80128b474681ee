/** The JSON Schema subset the OpenAPI document uses for requests (zod's output). */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  description?: string;
  default?: unknown;
}

export interface SchemaProblem {
  /** Path segments from the root: property names and array indexes. */
  path: (string | number)[];
  message: string;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeMatches(expected: string | string[], actual: string): boolean {
  const types = Array.isArray(expected) ? expected : [expected];
  return types.some((type) => type === actual || (type === 'number' && actual === 'integer'));
}

/** Problems a value has against a schema, as a person would want them before sending. */
export function checkAgainstSchema(schema: JsonSchema, value: unknown, path: (string | number)[] = []): SchemaProblem[] {
  if (schema.anyOf) {
    const branches = schema.anyOf.map((branch) => checkAgainstSchema(branch, value, path));
    return branches.some((problems) => problems.length === 0) ? [] : (branches[0] ?? []);
  }
  const actual = typeOf(value);
  if (schema.type !== undefined && !typeMatches(schema.type, actual)) {
    // Query-string forms send numbers as text; the server accepts digits for numbers.
    if (!(actual === 'string' && typeMatches(schema.type, 'integer') && /^\d+$/.test(value as string))) {
      return [{ path, message: `expected ${Array.isArray(schema.type) ? schema.type.join(' or ') : schema.type}, got ${actual}` }];
    }
  }
  const problems: SchemaProblem[] = [];
  if (schema.enum && !schema.enum.includes(value)) {
    problems.push({ path, message: `must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}` });
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength) problems.push({ path, message: schema.minLength === 1 ? 'is required' : `must be at least ${schema.minLength} characters` });
    if (schema.maxLength !== undefined && length > schema.maxLength) problems.push({ path, message: `must be at most ${schema.maxLength} characters` });
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) problems.push({ path, message: `must be at least ${schema.minimum}` });
    if (schema.maximum !== undefined && value > schema.maximum) problems.push({ path, message: `must be at most ${schema.maximum}` });
  }
  if (Array.isArray(value)) {
    if (schema.maxItems !== undefined && value.length > schema.maxItems) problems.push({ path, message: `at most ${schema.maxItems} items` });
    if (schema.items) value.forEach((item, i) => problems.push(...checkAgainstSchema(schema.items!, item, [...path, i])));
  }
  if (actual === 'object' && schema.properties) {
    const object = value as Record<string, unknown>;
    for (const name of schema.required ?? []) {
      if (!(name in object)) problems.push({ path: [...path, name], message: 'is required' });
    }
    for (const [name, inner] of Object.entries(object)) {
      const property = schema.properties[name];
      if (property) problems.push(...checkAgainstSchema(property, inner, [...path, name]));
      else if (schema.additionalProperties === false) problems.push({ path: [...path, name], message: 'unknown field' });
    }
  }
  return problems;
}

/** The schema that describes the value at `path` (for completing field names there). */
export function schemaAt(schema: JsonSchema | undefined, path: (string | number)[]): JsonSchema | undefined {
  let current = schema;
  for (const segment of path) {
    if (!current) return undefined;
    const branch = current.anyOf?.find((s) => s.properties || s.items) ?? current;
    current = typeof segment === 'number' ? branch.items : branch.properties?.[segment];
  }
  const resolved = current?.anyOf?.find((s) => s.properties || s.items) ?? current;
  return resolved;
}

/** `new_outcome.changes[0].time`: the path as the server's error messages write it. */
export function pathText(path: (string | number)[]): string {
  let out = '';
  for (const segment of path) out += typeof segment === 'number' ? `[${segment}]` : out ? `.${segment}` : segment;
  return out || 'request body';
}
