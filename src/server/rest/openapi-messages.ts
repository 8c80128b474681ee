import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';

/** JSON Schemas by component name; `messageRef` adds each message (and those it uses) once. */
export type SchemaComponents = Record<string, object>;

/** A protobuf message as the JSON the REST face sends (snake_case field names), as a component reference. */
export function messageRef(message: DescMessage, schemas: SchemaComponents): object {
  const name = message.typeName;
  if (!schemas[name]) {
    schemas[name] = {}; // placeholder first: messages may refer to themselves
    const properties: Record<string, object> = {};
    for (const field of message.fields) properties[field.name] = fieldSchema(field, schemas);
    schemas[name] = { type: 'object', properties };
  }
  return { $ref: `#/components/schemas/${name}` };
}

function fieldSchema(field: DescField, schemas: SchemaComponents): object {
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
