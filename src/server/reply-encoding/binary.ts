import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { WireType } from '@bufbuild/protobuf/wire';
import protobufjs from 'protobufjs/minimal.js';
import { hasImplicitPresence, isMapKey, isObject, isText, isStringMap, plainScalar } from './plain-values.ts';

type Writer = protobufjs.Writer;
/** Writes one message's fields; false when a value is not in its plain form. */
type WriteFields = (writer: Writer, json: Record<string, unknown>) => boolean;
type WriteValue = (writer: Writer, value: unknown) => boolean;

/** A field's key: its number and wire type, as one varint. */
const tag = (writer: Writer, number: number, wireType: WireType): Writer => writer.uint32(((number << 3) | wireType) >>> 0);

/**
 * Encodes a message straight from its proto-JSON form (proto field names, as operations return it) to protobuf
 * binary, the bytes `toBinary(schema, fromJson(schema, json))` gives, without building the message between. It
 * covers the message shapes tms's API uses (strings, bools, 32-bit integers, doubles, nested and repeated
 * messages, string maps) in their plain form; for anything else it answers undefined, and the caller takes
 * protobuf-es's way, which also says what is wrong with a value that does not fit. The bytes are written by
 * protobufjs's `Writer`, which sizes the whole message before it writes it into one buffer (docs/decisions.md).
 */
export function jsonToBinary(schema: DescMessage): (json: object) => Uint8Array | undefined {
  const write = compile(schema, new Map());
  if (!write) return () => undefined;
  return (json) => {
    const writer = protobufjs.Writer.create();
    return write(writer, json as Record<string, unknown>) ? writer.finish() : undefined;
  };
}

/** `compiled` holds the messages compiled so far, so that a message that contains itself refers to itself. */
function compile(schema: DescMessage, compiled: Map<DescMessage, WriteFields | undefined>): WriteFields | undefined {
  if (compiled.has(schema)) return compiled.get(schema);
  compiled.set(schema, (writer, json) => self(writer, json));
  const writers: { name: string; write: WriteValue }[] = [];
  for (const field of [...schema.fields].sort((a, b) => a.number - b.number)) {
    const write = fieldWriter(field, compiled);
    if (!write) {
      compiled.set(schema, undefined);
      return undefined;
    }
    writers.push({ name: field.name, write });
  }
  const self: WriteFields = (writer, json) => {
    if (!isObject(json)) return false;
    let seen = 0;
    for (const { name, write } of writers) {
      const value = json[name];
      if (value === undefined) continue;
      seen++;
      if (value !== null && !write(writer, value)) return false;
    }
    // A key this does not know (a JSON name, a typo) is protobuf-es's to accept or refuse.
    return seen === Object.keys(json).length;
  };
  compiled.set(schema, self);
  return self;
}

function fieldWriter(field: DescField, compiled: Map<DescMessage, WriteFields | undefined>): WriteValue | undefined {
  const number = field.number;
  switch (field.fieldKind) {
    case 'scalar': {
      const scalar = scalarWriter(field.scalar);
      if (!scalar) return undefined;
      const { fits, isZero, wireType, write } = scalar;
      // Implicit presence leaves a zero value out; explicit presence (`optional`) writes any value it is given.
      const implicit = hasImplicitPresence(field);
      return (writer, value) => {
        if (!fits(value)) return false;
        if (!(implicit && isZero(value))) write(tag(writer, number, wireType), value);
        return true;
      };
    }
    case 'message': {
      const write = field.delimitedEncoding ? undefined : compile(field.message, compiled);
      return write && ((writer, value) => writeMessage(writer, number, write, value));
    }
    case 'list': {
      if (field.listKind === 'message') {
        const write = field.delimitedEncoding ? undefined : compile(field.message, compiled);
        return write && ((writer, value) => Array.isArray(value) && value.every((item) => writeMessage(writer, number, write, item)));
      }
      // Packed lists (repeated numbers) are not in the API; strings are never packed.
      if (field.listKind !== 'scalar' || field.scalar !== ScalarType.STRING) return undefined;
      return (writer, value) => {
        if (!Array.isArray(value)) return false;
        for (const item of value) {
          if (!isText(item)) return false;
          tag(writer, number, WireType.LengthDelimited).string(item);
        }
        return true;
      };
    }
    case 'map': {
      if (!isStringMap(field)) return undefined;
      return (writer, value) => {
        if (!isObject(value)) return false;
        for (const [key, item] of Object.entries(value)) {
          if (!isText(item) || !isMapKey(key)) return false;
          tag(writer, number, WireType.LengthDelimited).fork();
          tag(tag(writer, 1, WireType.LengthDelimited).string(key), 2, WireType.LengthDelimited).string(item).ldelim();
        }
        return true;
      };
    }
    default:
      return undefined;
  }
}

function writeMessage(writer: Writer, number: number, write: WriteFields, value: unknown): boolean {
  tag(writer, number, WireType.LengthDelimited).fork();
  if (!write(writer, value as Record<string, unknown>)) return false;
  writer.ldelim();
  return true;
}

interface ScalarWriter {
  wireType: WireType;
  fits(value: unknown): boolean;
  isZero(value: unknown): boolean;
  write(writer: Writer, value: unknown): void;
}

function scalarWriter(type: ScalarType): ScalarWriter | undefined {
  const fits = plainScalar(type);
  if (!fits) return undefined;
  switch (type) {
    case ScalarType.STRING:
      return { fits, wireType: WireType.LengthDelimited, isZero: (v) => v === '', write: (w, v) => w.string(v as string) };
    case ScalarType.BOOL:
      return { fits, wireType: WireType.Varint, isZero: (v) => v === false, write: (w, v) => w.bool(v as boolean) };
    case ScalarType.INT32:
      return { fits, wireType: WireType.Varint, isZero: (v) => v === 0, write: (w, v) => w.int32(v as number) };
    case ScalarType.UINT32:
      return { fits, wireType: WireType.Varint, isZero: (v) => v === 0, write: (w, v) => w.uint32(v as number) };
    case ScalarType.DOUBLE:
      // -0 is not zero to protobuf-es: it is written.
      return { fits, wireType: WireType.Bit64, isZero: (v) => Object.is(v, 0), write: (w, v) => w.double(v as number) };
    default:
      return undefined;
  }
}
