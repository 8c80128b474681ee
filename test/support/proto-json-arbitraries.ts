// Random proto-JSON values for the API's messages, to compare our own readers and writers with protobuf-es.
import fc from 'fast-check';
import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';

export const anyString = fc.oneof(fc.string(), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.constantFrom('', 'é'.repeat(200), '💥'));

function scalarValue(type: ScalarType | undefined): fc.Arbitrary<unknown> {
  switch (type) {
    case ScalarType.STRING:
      return anyString;
    case ScalarType.BOOL:
      return fc.boolean();
    case ScalarType.INT32:
      return fc.oneof(fc.integer(), fc.constantFrom(0, -1, -(2 ** 31), 2 ** 31 - 1));
    case ScalarType.UINT32:
      return fc.oneof(fc.nat(), fc.constantFrom(0, 2 ** 32 - 1));
    case ScalarType.DOUBLE:
      return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, -0, 1e308));
    default:
      throw new Error(`no generator for scalar ${String(type)}`);
  }
}

/**
 * Proto-JSON for a message, with fields left out at random: under their proto field names, or (`eitherName`) each
 * under its proto or its JSON name, as a request may name them.
 */
export function messageJson(schema: DescMessage, depth = 0, eitherName = false): fc.Arbitrary<Record<string, unknown>> {
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const field of schema.fields) fields[field.name] = fieldValue(field, depth, eitherName);
  const json = fc.record(fields, { requiredKeys: [] });
  if (!eitherName) return json;
  return fc.tuple(json, fc.array(fc.boolean(), { minLength: schema.fields.length, maxLength: schema.fields.length })).map(([byName, jsonNames]) =>
    Object.fromEntries(schema.fields.filter((field) => field.name in byName).map((field, i) => [jsonNames[i] ? field.jsonName : field.name, byName[field.name]])),
  );
}

function fieldValue(field: DescField, depth: number, eitherName: boolean): fc.Arbitrary<unknown> {
  const nested = (message: DescMessage) => (depth > 3 ? fc.constant({}) : messageJson(message, depth + 1, eitherName));
  switch (field.fieldKind) {
    case 'scalar':
      return scalarValue(field.scalar);
    case 'message':
      return nested(field.message);
    case 'list':
      return fc.array(field.listKind === 'message' ? nested(field.message) : scalarValue(field.scalar), { maxLength: 4 });
    case 'map':
      // `__proto__` is no map key to protobuf-es (its maps are plain objects); the mutations try it.
      return fc.dictionary(anyString.filter((key) => key !== '__proto__'), scalarValue(field.scalar), { maxKeys: 4 });
    default:
      throw new Error(`no generator for ${field.fieldKind} ${field.name}`);
  }
}

/** A value of the wrong kind, a null, an unknown key or a JSON name somewhere in the message. */
export function mutated(json: Record<string, unknown>): fc.Arbitrary<unknown> {
  const odd = fc.oneof(fc.constant(null), fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant([]), fc.constant({}), fc.constant([null]), fc.constantFrom('NaN', 'Infinity', '12', '\ud800', ['\udc00'], JSON.parse('{"__proto__":"x"}') as object));
  const keys = Object.keys(json);
  return fc.oneof(
    fc.tuple(keys.length ? fc.constantFrom(...keys) : fc.constant('absent'), odd).map(([key, value]) => ({ ...json, [key]: value })),
    fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), odd).map(([key, value]) => ({ ...json, [key]: value })),
    fc.constant(Object.fromEntries(keys.map((key) => [key.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase()), json[key]]))),
    odd,
  );
}

