import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { DECLINE, hasImplicitPresence, isObject, isStringMap, plainList, plainScalarValue, plainStringMap, type PlainConversion } from './plain-values.ts';

/** A message's fields in the reply's form and order; undefined when a value is not in its plain form. */
type Shape = (json: Record<string, unknown>) => Record<string, unknown> | undefined;
/** One field's value in the reply's form; `DECLINE` when it is not in its plain form. */
type ShapeValue = PlainConversion;

/**
 * The Connect JSON reply for an operation's output (proto-JSON, proto field names), as text: what
 * `toJsonString(schema, fromJson(schema, json), { useProtoFieldName: true, alwaysEmitImplicit: true })` writes,
 * without building the message between. Fields come in field-number order; every field without explicit
 * presence is shown (its zero value when the output leaves it out), `optional` and message fields only when
 * set. Like `jsonToBinary`, it covers the API's plain shapes and answers undefined for anything else, which the
 * caller leaves to protobuf-es.
 */
export function jsonReplyText(schema: DescMessage): (json: object) => string | undefined {
  const shape = compile(schema, new Map());
  if (!shape) return () => undefined;
  return (json) => {
    const shaped = shape(json as Record<string, unknown>);
    return shaped && JSON.stringify(shaped);
  };
}

/** `compiled` holds the messages compiled so far, so that a message that contains itself refers to itself. */
function compile(schema: DescMessage, compiled: Map<DescMessage, Shape | undefined>): Shape | undefined {
  if (compiled.has(schema)) return compiled.get(schema);
  compiled.set(schema, (json) => self(json));
  const fields: { name: string; shape: ShapeValue; unset: (() => unknown) | undefined }[] = [];
  for (const field of [...schema.fields].sort((a, b) => a.number - b.number)) {
    const shape = fieldShape(field, compiled);
    if (!shape) {
      compiled.set(schema, undefined);
      return undefined;
    }
    fields.push({ name: field.name, shape, unset: unsetValue(field) });
  }
  const self: Shape = (json) => {
    if (!isObject(json)) return undefined;
    const out: Record<string, unknown> = {};
    let seen = 0;
    for (const { name, shape, unset } of fields) {
      const value = json[name];
      if (value !== undefined) seen++;
      if (value === undefined || value === null) {
        if (unset) out[name] = unset();
        continue;
      }
      const shaped = shape(value);
      if (shaped === DECLINE) return undefined;
      out[name] = shaped;
    }
    // A key this does not know (a JSON name, a typo) is protobuf-es's to accept or refuse.
    return seen === Object.keys(json).length ? out : undefined;
  };
  compiled.set(schema, self);
  return self;
}

/** What an unset field shows: its zero value, an empty list or map; nothing (undefined) when it has presence. */
function unsetValue(field: DescField): (() => unknown) | undefined {
  switch (field.fieldKind) {
    case 'scalar': {
      if (!hasImplicitPresence(field)) return undefined;
      const zero = field.scalar === ScalarType.STRING ? '' : field.scalar === ScalarType.BOOL ? false : 0;
      return () => zero;
    }
    case 'list':
      return () => [];
    case 'map':
      return () => ({});
    default:
      return undefined;
  }
}

function fieldShape(field: DescField, compiled: Map<DescMessage, Shape | undefined>): ShapeValue | undefined {
  switch (field.fieldKind) {
    case 'scalar':
      return plainScalarValue(field.scalar);
    case 'message':
      return messageShape(compile(field.message, compiled));
    case 'list': {
      const item = field.listKind === 'message' ? messageShape(compile(field.message, compiled)) : field.listKind === 'scalar' ? plainScalarValue(field.scalar) : undefined;
      return item && plainList(item);
    }
    case 'map':
      return isStringMap(field) ? plainStringMap : undefined;
    default:
      return undefined;
  }
}

function messageShape(shape: Shape | undefined): ShapeValue | undefined {
  return shape && ((value) => shape(value as Record<string, unknown>) ?? DECLINE);
}
