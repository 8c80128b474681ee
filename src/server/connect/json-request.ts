import { fromJson, ScalarType, type DescField, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { isFieldError } from '@bufbuild/protobuf/reflect';
import { typeName } from '../../api/validation.ts';
import { namesAMemberTwice } from '../json-members.ts';
import { DECLINE, hasImplicitPresence, isObject, isStringMap, plainList, plainScalar, plainScalarValue, plainStringMap, type PlainConversion } from '../reply-encoding/plain-values.ts';

/** A message's set fields by proto field name; undefined when a value is not in its plain form. */
type Reader = (json: Record<string, unknown>) => Record<string, unknown> | undefined;
/** One field's value as the operation takes it; `DECLINE` when not in its plain form, `UNSET` when it sets nothing. */
type ValueReader = PlainConversion;

const UNSET = Symbol('unset');

/**
 * A Connect JSON request body as the operation's input: what
 * `toJson(schema, fromJsonString(schema, text), { useProtoFieldName: true })` gives, without building the message
 * between. It reads fields under their proto or JSON names. It covers the API's plain shapes and answers
 * undefined for anything else (text that is no JSON, a member that names no field, a member named twice in one
 * object, a number as a string, a field under both its names, a null in a list), which the caller leaves to
 * protobuf-es to read or to refuse in its own words.
 */
export function jsonRequestFields(schema: DescMessage): (text: string) => Record<string, unknown> | undefined {
  const read = compile(schema, new Map());
  if (!read) return () => undefined;
  return (text) => {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return undefined;
    }
    return isObject(json) && !namesAMemberTwice(text, json) ? read(json) : undefined;
  };
}

/** `compiled` holds the messages compiled so far, so that a message that contains itself refers to itself. */
function compile(schema: DescMessage, compiled: Map<DescMessage, Reader | undefined>): Reader | undefined {
  if (compiled.has(schema)) return compiled.get(schema);
  // The well-known types have JSON forms of their own (a Timestamp is a string).
  if (schema.typeName.startsWith('google.protobuf.')) return undefined;
  compiled.set(schema, (json) => self(json));
  const fields: { name: string; jsonName: string | undefined; read: ValueReader }[] = [];
  for (const field of [...schema.fields].sort((a, b) => a.number - b.number)) {
    const read = field.oneof === undefined && !inheritedName(field) ? fieldReader(field, compiled) : undefined;
    if (!read) {
      compiled.set(schema, undefined);
      return undefined;
    }
    fields.push({ name: field.name, jsonName: field.jsonName === field.name ? undefined : field.jsonName, read });
  }
  const self: Reader = (json) => {
    const out: Record<string, unknown> = {};
    let members = 0;
    for (const { name, jsonName, read } of fields) {
      let value = json[name];
      if (jsonName !== undefined) {
        const underJsonName = json[jsonName];
        if (underJsonName !== undefined) {
          if (value !== undefined) return undefined;
          value = underJsonName;
        }
      }
      if (value === undefined) continue;
      members += 1;
      const field = read(value);
      if (field === DECLINE) return undefined;
      if (field !== UNSET) out[name] = field;
    }
    // A member that names no field: left to protobuf-es, which refuses it.
    return members === Object.keys(json).length ? out : undefined;
  };
  compiled.set(schema, self);
  return self;
}

/** A name a parsed JSON object answers without having it (`constructor`, `toString`): left to protobuf-es. */
const inheritedName = (field: DescField): boolean => field.name in Object.prototype || field.jsonName in Object.prototype;

function fieldReader(field: DescField, compiled: Map<DescMessage, Reader | undefined>): ValueReader | undefined {
  switch (field.fieldKind) {
    case 'scalar': {
      const fits = plainScalar(field.scalar);
      if (!fits) return undefined;
      const zero = field.scalar === ScalarType.STRING ? '' : field.scalar === ScalarType.BOOL ? false : 0;
      const implicit = hasImplicitPresence(field);
      return (value) => (value === null || (implicit && value === zero) ? UNSET : fits(value) ? value : DECLINE);
    }
    case 'message': {
      const message = messageReader(field.message, compiled);
      return message && ((value) => (value === null ? UNSET : message(value)));
    }
    case 'list': {
      const item = field.listKind === 'message' ? messageReader(field.message, compiled) : field.listKind === 'scalar' ? plainScalarValue(field.scalar) : undefined;
      const list = item && plainList(item);
      return list && ((value) => (value === null || (Array.isArray(value) && value.length === 0) ? UNSET : list(value)));
    }
    case 'map':
      if (!isStringMap(field)) return undefined;
      return (value) => {
        if (value === null) return UNSET;
        const map = plainStringMap(value);
        return map !== DECLINE && Object.keys(map as object).length === 0 ? UNSET : map;
      };
    default:
      return undefined;
  }
}

function messageReader(schema: DescMessage, compiled: Map<DescMessage, Reader | undefined>): ValueReader | undefined {
  const read = compile(schema, compiled);
  return read && ((value) => (isObject(value) ? (read(value) ?? DECLINE) : DECLINE));
}

/**
 * Where the first member that names no field is in a parsed JSON request, as REST names fields
 * (`new_outcome.changes[0].actio`); undefined when every member names a field of its message.
 */
export function unknownFieldPath(schema: DescMessage, json: unknown, path = ''): string | undefined {
  if (!isObject(json) || schema.typeName.startsWith('google.protobuf.')) return undefined;
  for (const [key, value] of Object.entries(json)) {
    const field = schema.fields.find((candidate) => candidate.name === key || candidate.jsonName === key);
    const at = path === '' ? key : `${path}.${key}`;
    if (!field) return at;
    if (field.fieldKind === 'message') {
      const inner = unknownFieldPath(field.message, value, at);
      if (inner) return inner;
    } else if (field.fieldKind === 'list' && field.listKind === 'message' && Array.isArray(value)) {
      for (const [i, item] of value.entries()) {
        const inner = unknownFieldPath(field.message, item, `${at}[${i}]`);
        if (inner) return inner;
      }
    }
  }
  return undefined;
}

/**
 * The first member of a parsed JSON request that protobuf-es cannot read, named by its path as REST names fields
 * (`new_outcome.changes[0].time`), and what is wrong with it; undefined when each member reads on its own. Each
 * member is tried alone, so the answer follows protobuf-es's own rules.
 */
export function unreadableField(schema: DescMessage, json: unknown, path = ''): { field: string; problem: string } | undefined {
  if (!isObject(json)) return undefined;
  for (const [key, value] of Object.entries(json)) {
    const field = schema.fields.find((candidate) => candidate.name === key || candidate.jsonName === key);
    if (!field) continue;
    // Named as REST names it: the proto field name, whichever name the client used.
    const at = path === '' ? field.name : `${path}.${field.name}`;
    const refused = refusal(schema, key, value);
    if (refused === undefined) continue;
    if (field.fieldKind === 'map' && isObject(value)) {
      for (const [entry, inner] of Object.entries(value)) {
        const entryRefused = refusal(schema, key, { [entry]: inner });
        if (entryRefused !== undefined) return { field: `${at}.${entry}`, problem: entryRefused };
      }
    }
    if (field.fieldKind === 'message' && !field.message.typeName.startsWith('google.protobuf.')) {
      if (!isObject(value)) return { field: at, problem: `expected object, got ${typeName(value)}` };
      return unreadableField(field.message, value, at) ?? { field: at, problem: refused };
    }
    if (field.fieldKind === 'list') {
      if (!Array.isArray(value)) return { field: at, problem: `expected array, got ${typeName(value)}` };
      for (const [i, item] of value.entries()) {
        const itemRefused = refusal(schema, key, [item]);
        if (itemRefused === undefined) continue;
        const itemAt = `${at}[${i}]`;
        if (field.listKind !== 'message') return { field: itemAt, problem: itemRefused };
        if (!isObject(item)) return { field: itemAt, problem: `expected object, got ${typeName(item)}` };
        return unreadableField(field.message, item, itemAt) ?? { field: itemAt, problem: itemRefused };
      }
    }
    return { field: at, problem: refused };
  }
  return undefined;
}

/** Why protobuf-es refuses a message holding this one member (in its words, the field's own where it gives them). */
function refusal(schema: DescMessage, key: string, value: unknown): string | undefined {
  try {
    fromJson(schema, { [key]: value } as JsonValue);
    return undefined;
  } catch (error) {
    const cause = error instanceof Error ? error.cause : undefined;
    return isFieldError(cause) ? cause.message : String((error as Error).message);
  }
}
