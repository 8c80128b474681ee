import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { fromJson, toBinary, toJsonString, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { jsonToBinary } from '../../src/server/reply-encoding/binary.ts';
import { jsonReplyText } from '../../src/server/reply-encoding/json-text.ts';
import { RPC_JSON_OPTIONS } from '../../src/server/connect/rpc-services.ts';
import { tmsServices } from '../../src/server/connect/services.ts';
import { SearchEventsResponseSchema } from '../../src/gen/tms/v1/event_service_pb.ts';
import { HealthCheckResponseSchema } from '../../src/gen/grpc/health/v1/health_pb.ts';
import { messageJson, mutated } from '../support/proto-json-arbitraries.ts';

/** Every request and response message of the API. */
const apiMessages = [...new Map(tmsServices.flatMap((service) => service.methods.flatMap((method) => [method.input, method.output])).map((m) => [m.typeName, m])).values()];

/** Bytes as hex, to compare a Buffer with a Uint8Array by content. */
const hex = (bytes: Uint8Array | undefined) => (bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex') : String(bytes));

/** protobuf-es's bytes for a proto-JSON value, or the error it refuses it with. */
function libraryBytes(schema: DescMessage, json: unknown): Uint8Array | Error {
  try {
    return toBinary(schema, fromJson(schema, json as JsonValue));
  } catch (error) {
    return error as Error;
  }
}

/** protobuf-es's Connect JSON reply text for a proto-JSON value, or the error it refuses it with. */
function libraryText(schema: DescMessage, json: unknown): string | Error {
  try {
    return toJsonString(schema, fromJson(schema, json as JsonValue), RPC_JSON_OPTIONS);
  } catch (error) {
    return error as Error;
  }
}

/** Each encoder, with what protobuf-es makes of the same value, as comparable text. */
const encoders = [
  { name: 'binary', make: (schema: DescMessage) => jsonToBinary(schema), library: libraryBytes, text: (out: Uint8Array | undefined) => hex(out) },
  { name: 'JSON text', make: (schema: DescMessage) => jsonReplyText(schema), library: libraryText, text: (out: string | undefined) => String(out) },
] as const;
const libraryAsText = (out: Uint8Array | string) => (typeof out === 'string' ? out : hex(out));

for (const encoder of encoders) {
  test(`${encoder.name}: the API messages are all within what it encodes itself`, () => {
    for (const schema of apiMessages) assert.ok(encoder.make(schema)({}) !== undefined, schema.typeName);
  });

  test(`${encoder.name}: every API message, in proto-JSON form, encodes exactly as protobuf-es encodes it`, () => {
    for (const schema of apiMessages) {
      const encode = encoder.make(schema) as (json: object) => Uint8Array | string | undefined;
      fc.assert(
        fc.property(messageJson(schema), (json) => {
          const expected = encoder.library(schema, json);
          if (expected instanceof Error) throw expected;
          assert.is(encoder.text(encode(json) as never), libraryAsText(expected), schema.typeName);
        }),
        { seed: 20261126, numRuns: 200 },
      );
    }
  });

  test(`${encoder.name}: a value it does not expect is left to protobuf-es: the same encoding, or it declines`, () => {
    for (const schema of apiMessages) {
      const encode = encoder.make(schema) as (json: object) => Uint8Array | string | undefined;
      fc.assert(
        fc.property(
          messageJson(schema).chain((json) => mutated(json)),
          (json) => {
            const mine = encode(json as object);
            if (mine === undefined) return;
            const expected = encoder.library(schema, json);
            assert.ok(!(expected instanceof Error), `${schema.typeName} ${JSON.stringify(json)}: protobuf-es refuses it (${String(expected)}), this encoded it`);
            assert.is(encoder.text(mine as never), libraryAsText(expected), `${schema.typeName} ${JSON.stringify(json)}`);
          },
        ),
        { seed: 20261126, numRuns: 200 },
      );
    }
  });
}

test('a search reply as the operation returns it', () => {
  const json = {
    events: [
      { event_id: 'e1', description: 'Fall of the Bastille', time: '1789-07-14T15:30:00Z', location: 'Paris', causes: ['e0'], status: 'active', timeline_id: 'primary', changes: [] },
      { event_id: 'e2', description: '', time: '', location: 'Lyon', causes: [], status: 'cancelled', timeline_id: 'tl_1', changes: [{ action: 'observe', time: '2000-01-01T00:00:00Z' }] },
    ],
    next_page_token: 'abc',
  };
  const bytes = jsonToBinary(SearchEventsResponseSchema)(json);
  assert.ok(bytes);
  assert.is(hex(bytes), hex(libraryBytes(SearchEventsResponseSchema, json) as Uint8Array));
  const text = jsonReplyText(SearchEventsResponseSchema)(json);
  assert.is(text, libraryText(SearchEventsResponseSchema, json));
  assert.match(text!, '"superseded_by":"","changes":[],"created_by":""', 'fields the output left out are shown with their zero values');
});

test('a message with a field it does not cover (an enum) is left to protobuf-es whole', () => {
  assert.is(jsonToBinary(HealthCheckResponseSchema)({ status: 'SERVING' }), undefined);
  assert.is(jsonReplyText(HealthCheckResponseSchema)({ status: 'SERVING' }), undefined);
});

test.run();
