import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { fromJson, toJson, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { jsonRequestFields } from '../../src/server/connect/json-request.ts';
import { tmsServices } from '../../src/server/connect/services.ts';
import { ManipulateEventRequestSchema, SearchEventsRequestSchema } from '../../src/gen/tms/v1/event_service_pb.ts';
import { SetAnchorRequestSchema } from '../../src/gen/tms/v1/anchor_service_pb.ts';
import { SaveRequestRequestSchema } from '../../src/gen/tms/v1/console_service_pb.ts';
import { HealthCheckResponseSchema } from '../../src/gen/grpc/health/v1/health_pb.ts';
import { messageJson, mutated } from '../support/proto-json-arbitraries.ts';

/** Every request message of the API. */
const requests = [...new Map(tmsServices.flatMap((service) => service.methods.map((method) => [method.input.typeName, method.input]))).values()];

/** What the operation got before: protobuf-es's message, as proto-named JSON; or the error protobuf-es refuses it with. */
function libraryFields(schema: DescMessage, json: unknown): unknown {
  try {
    return toJson(schema, fromJson(schema, json as JsonValue, { ignoreUnknownFields: true }), { useProtoFieldName: true });
  } catch (error) {
    return error as Error;
  }
}

test('every API request message is within what it reads itself', () => {
  for (const schema of requests) assert.equal(jsonRequestFields(schema)({}), {}, schema.typeName);
});

test('every API request, its fields under either name, reads as protobuf-es reads it', () => {
  for (const schema of requests) {
    const read = jsonRequestFields(schema);
    fc.assert(
      fc.property(messageJson(schema, 0, true), (json) => {
        const expected = libraryFields(schema, json);
        if (expected instanceof Error) throw expected;
        assert.equal(JSON.stringify(read(json)), JSON.stringify(expected), schema.typeName);
      }),
      { seed: 20261127, numRuns: 200 },
    );
  }
});

test('a value it does not expect is left to protobuf-es: the same fields, or it declines', () => {
  for (const schema of requests) {
    const read = jsonRequestFields(schema);
    fc.assert(
      fc.property(
        messageJson(schema, 0, true).chain((json) => mutated(json)),
        (json) => {
          const mine = read(json);
          if (mine === undefined) return;
          const expected = libraryFields(schema, json);
          assert.ok(!(expected instanceof Error), `${schema.typeName} ${JSON.stringify(json)}: protobuf-es refuses it (${String(expected)}), this read it`);
          assert.equal(JSON.stringify(mine), JSON.stringify(expected), `${schema.typeName} ${JSON.stringify(json)}`);
        },
      ),
      { seed: 20261127, numRuns: 200 },
    );
  }
});

test('a search request as clients send it', () => {
  const read = jsonRequestFields(SearchEventsRequestSchema);
  assert.equal(read({ location: 'Paris', time_range: '1789-01-01T00:00:00Z/1790-01-01T00:00:00Z', page_size: 10, pageToken: 'abc', colour: 'red' }), {
    location: 'Paris',
    time_range: '1789-01-01T00:00:00Z/1790-01-01T00:00:00Z',
    page_size: 10,
    page_token: 'abc',
  });
  assert.equal(read({ location: '', page_size: 0, timeline_id: null }), {}, 'zero values and nulls set nothing');
});

test('fields it leaves to protobuf-es, which refuses them or converts them', () => {
  const search = jsonRequestFields(SearchEventsRequestSchema);
  assert.is(search({ page_size: 1, pageSize: 2 }), undefined, 'one field under both its names');
  assert.is(search({ page_size: '10' }), undefined, 'a number as a string');
  assert.is(search({ page_size: 1.5 }), undefined, 'a fraction');
  assert.is(search({ location: '\ud800' }), undefined, 'an unpaired surrogate');
  assert.is(search([]), undefined, 'an array');
  assert.is(search(null), undefined, 'null');
  const manipulate = jsonRequestFields(ManipulateEventRequestSchema);
  assert.is(manipulate({ new_outcome: { changes: [null] } }), undefined, 'a null in a list');
  assert.is(manipulate({ new_outcome: 'observe' }), undefined, 'a message as a string');
  const save = jsonRequestFields(SaveRequestRequestSchema);
  assert.is(save({ headers: { a: null } }), undefined, 'a null map value');
  assert.is(save({ headers: JSON.parse('{"__proto__":"x","a":"b"}') as object }), undefined, 'a map key protobuf-es does not keep');
});

test('optional fields keep an empty value; messages and lists as set', () => {
  assert.equal(jsonRequestFields(SetAnchorRequestSchema)({ accuracy: '', environment: {}, quantumState: { qubit_configuration: 'up' } }), {
    accuracy: '',
    environment: {},
    quantum_state: { qubit_configuration: 'up' },
  });
  assert.equal(jsonRequestFields(ManipulateEventRequestSchema)({ new_outcome: { changes: [] }, safetyCheck: true }), { new_outcome: {}, safety_check: true });
});

test('a message with a field it does not cover (an enum) is left to protobuf-es whole', () => {
  assert.is(jsonRequestFields(HealthCheckResponseSchema)({ status: 'SERVING' }), undefined);
});

test.run();
