import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { fromJsonString, toJson, type DescMessage } from '@bufbuild/protobuf';
import { jsonRequestFields, unknownFieldPath } from '../../src/server/connect/json-request.ts';
import { tmsServices } from '../../src/server/connect/services.ts';
import { ManipulateEventRequestSchema, SearchEventsRequestSchema } from '../../src/gen/tms/v1/event_service_pb.ts';
import { SetAnchorRequestSchema } from '../../src/gen/tms/v1/anchor_service_pb.ts';
import { SaveRequestRequestSchema } from '../../src/gen/tms/v1/console_service_pb.ts';
import { HealthCheckResponseSchema } from '../../src/gen/grpc/health/v1/health_pb.ts';
import { messageJson, mutated } from '../support/proto-json-arbitraries.ts';

/** Every request message of the API. */
const requests = [...new Map(tmsServices.flatMap((service) => service.methods.map((method) => [method.input.typeName, method.input]))).values()];

/** What the operation gets through protobuf-es's message, as proto-named JSON; or the error protobuf-es refuses it with. */
function libraryFields(schema: DescMessage, text: string): unknown {
  try {
    return toJson(schema, fromJsonString(schema, text), { useProtoFieldName: true });
  } catch (error) {
    return error as Error;
  }
}

test('every API request message is within what it reads itself', () => {
  for (const schema of requests) assert.equal(jsonRequestFields(schema)('{}'), {}, schema.typeName);
});

test('every API request, its fields under either name, reads as protobuf-es reads it', () => {
  for (const schema of requests) {
    const read = jsonRequestFields(schema);
    fc.assert(
      fc.property(messageJson(schema, 0, true), (json) => {
        const text = JSON.stringify(json);
        const expected = libraryFields(schema, text);
        if (expected instanceof Error) throw expected;
        assert.equal(JSON.stringify(read(text)), JSON.stringify(expected), schema.typeName);
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
          const text = JSON.stringify(json);
          const mine = read(text);
          if (mine === undefined) return;
          const expected = libraryFields(schema, text);
          assert.ok(!(expected instanceof Error), `${schema.typeName} ${text}: protobuf-es refuses it (${String(expected)}), this read it`);
          assert.equal(JSON.stringify(mine), JSON.stringify(expected), `${schema.typeName} ${text}`);
        },
      ),
      { seed: 20261127, numRuns: 200 },
    );
  }
});

const asText = JSON.stringify;

test('a search request as clients send it', () => {
  const read = jsonRequestFields(SearchEventsRequestSchema);
  assert.equal(read(asText({ location: 'Paris', time_range: '1789-01-01T00:00:00Z/1790-01-01T00:00:00Z', page_size: 10, pageToken: 'abc' })), {
    location: 'Paris',
    time_range: '1789-01-01T00:00:00Z/1790-01-01T00:00:00Z',
    page_size: 10,
    page_token: 'abc',
  });
  assert.equal(read(asText({ location: '', page_size: 0, timeline_id: null })), {}, 'zero values and nulls set nothing');
  assert.equal(read(String.raw`{"location":"a:\\\":b","time_range":":"}`), { location: 'a:\\":b', time_range: ':' }, 'colons, quotes and backslashes within strings');
});

test('fields it leaves to protobuf-es, which refuses them or converts them', () => {
  const search = jsonRequestFields(SearchEventsRequestSchema);
  assert.is(search(asText({ page_size: 1, pageSize: 2 })), undefined, 'one field under both its names');
  assert.is(search(asText({ page_size: '10' })), undefined, 'a number as a string');
  assert.is(search(asText({ page_size: 1.5 })), undefined, 'a fraction');
  assert.is(search(asText({ location: '\ud800' })), undefined, 'an unpaired surrogate');
  assert.is(search('[]'), undefined, 'an array');
  assert.is(search('null'), undefined, 'null');
  assert.is(search('{"location":'), undefined, 'no JSON');
  assert.is(search(asText({ location: 'Paris', colour: 'red' })), undefined, 'a member that names no field');
  const manipulate = jsonRequestFields(ManipulateEventRequestSchema);
  assert.is(manipulate(asText({ new_outcome: { changes: [null] } })), undefined, 'a null in a list');
  assert.is(manipulate(asText({ new_outcome: 'observe' })), undefined, 'a message as a string');
  const save = jsonRequestFields(SaveRequestRequestSchema);
  assert.is(save(asText({ headers: { a: null } })), undefined, 'a null map value');
  assert.is(save('{"headers":{"__proto__":"x","a":"b"}}'), undefined, 'a map key protobuf-es does not keep');
});

test('a member named twice in one object, which JSON.parse merges and protobuf-es refuses, is left to protobuf-es', () => {
  const cases = [
    [SearchEventsRequestSchema, '{"location":"a","location":"b"}'],
    [SearchEventsRequestSchema, String.raw`{"\u006cocation":"a","location":"b"}`],
    [SearchEventsRequestSchema, '{"colour":1,"location":"a","colour":2}'],
    [ManipulateEventRequestSchema, '{"new_outcome":{"description":"a","description":"b"}}'],
    [ManipulateEventRequestSchema, '{"new_outcome":{"changes":[{"action":"a","action":"b"}]}}'],
    [SaveRequestRequestSchema, '{"headers":{"a":"1","a":"2"}}'],
  ] as const;
  for (const [schema, text] of cases) {
    assert.ok(libraryFields(schema, text) instanceof Error, `protobuf-es refuses ${text}`);
    assert.is(jsonRequestFields(schema)(text), undefined, text);
  }
});

test('an unknown member nested 100 000 deep is left to protobuf-es, which refuses it', () => {
  const text = `{"location":"Paris","x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
  assert.is(jsonRequestFields(SearchEventsRequestSchema)(text), undefined);
  assert.match(String(libraryFields(SearchEventsRequestSchema, text)), /key "x" is unknown/);
  assert.is(unknownFieldPath(SearchEventsRequestSchema, JSON.parse(text)), 'x');
});

test('the first member that names no field is named with its path, as REST names it', () => {
  assert.is(unknownFieldPath(SearchEventsRequestSchema, { location: 'Paris', timelin_id: 'x' }), 'timelin_id');
  assert.is(unknownFieldPath(SearchEventsRequestSchema, { pageSize: 1, timeRange: 'x' }), undefined, 'JSON names are fields too');
  assert.is(unknownFieldPath(ManipulateEventRequestSchema, { new_outcome: { descriptio: 'x' } }), 'new_outcome.descriptio');
  assert.is(unknownFieldPath(ManipulateEventRequestSchema, { new_outcome: { changes: [{ action: 'cancel' }, { actio: 'x' }] } }), 'new_outcome.changes[1].actio');
  assert.is(unknownFieldPath(SetAnchorRequestSchema, { timestamp: '2025-01-01T00:00:00Z', timline_id: 't' }), 'timline_id');
});

test('optional fields keep an empty value; messages and lists as set', () => {
  assert.equal(jsonRequestFields(SetAnchorRequestSchema)(asText({ accuracy: '', environment: {}, quantumState: { qubit_configuration: 'up' } })), {
    accuracy: '',
    environment: {},
    quantum_state: { qubit_configuration: 'up' },
  });
  assert.equal(jsonRequestFields(ManipulateEventRequestSchema)(asText({ new_outcome: { changes: [] }, safetyCheck: true })), { new_outcome: {}, safety_check: true });
});

test('a message with a field it does not cover (an enum) is left to protobuf-es whole', () => {
  assert.is(jsonRequestFields(HealthCheckResponseSchema)(asText({ status: 'SERVING' })), undefined);
});

test.run();
