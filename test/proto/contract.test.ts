// The protobuf contract against the interface spec and the product decisions: every RPC's request carries
// exactly the spec's snake_case field names, responses carry at least theirs, timestamps are strings, and
// the spec's own example bodies parse.
import { fromJson, toJson } from '@bufbuild/protobuf';
import type { DescMessage, DescService } from '@bufbuild/protobuf';
import { readdirSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AnchorFiguresSchema, EnvironmentSchema, QuantumStateSchema } from '../../src/gen/tms/v1/anchor_pb.ts';
import { ApiKeySchema } from '../../src/gen/tms/v1/account_service_pb.ts';
import { SavedRequestSchema } from '../../src/gen/tms/v1/console_service_pb.ts';
import { ChangeSchema, EventOutcomeSchema, EventSchema } from '../../src/gen/tms/v1/event_pb.ts';
import { ManipulateEventRequestSchema } from '../../src/gen/tms/v1/event_service_pb.ts';
import { ParadoxFiguresSchema, ParadoxSchema } from '../../src/gen/tms/v1/paradox_pb.ts';
import { SetAnchorRequestSchema } from '../../src/gen/tms/v1/anchor_service_pb.ts';
import { TimelineSchema } from '../../src/gen/tms/v1/timeline_pb.ts';
import { tmsServiceFiles } from '../../src/server/grpc-infra/api-files.ts';

interface Rpc {
  request: string[];
  response: string[];
}

const manipulateResponse = ['status', 'new_event_id', 'description', 'time', 'original_event_id', 'timeline_id', 'event'];
const createdTimeline = ['timeline_id', 'status', 'description', 'timeline'];
const paradoxReport = ['status', 'timeline_stability', 'paradoxes', 'figures'];
const page = ['page_size', 'page_token'];

/** Service → RPC → the spec's field names (interface-spec.md §2/§4, semantics.md, the proto brief). */
const contract: Record<string, Record<string, Rpc>> = {
  'tms.v1.EventService': {
    SearchEvents: { request: ['location', 'time_range', 'timeline_id', ...page], response: ['events', 'next_page_token'] },
    ManipulateEvent: { request: ['event_id', 'new_outcome', 'safety_check', 'timeline_id'], response: manipulateResponse },
    RevertEvent: { request: ['event_id', 'timeline_id'], response: ['status', 'original_event_id', 'timeline_id'] },
  },
  'tms.v1.TimelineService': {
    CreateTimeline: { request: ['base_timeline_id', 'description'], response: createdTimeline },
    CreateParallelTimeline: { request: ['base_timeline_id', 'description', 'variation'], response: createdTimeline },
    ListTimelines: { request: page, response: ['timelines', 'next_page_token'] },
    GetTimeline: { request: ['timeline_id'], response: ['timeline'] },
    DeleteTimeline: { request: ['timeline_id'], response: ['status', 'timeline_id'] },
    InsertTimeline: { request: ['base_timeline_id', 'description', 'variation'], response: createdTimeline },
  },
  'tms.v1.ParadoxService': {
    CheckParadox: { request: ['timeline_id'], response: paradoxReport },
  },
  'tms.v1.AnchorService': {
    SetAnchor: {
      request: ['timestamp', 'description', 'accuracy', 'environment', 'quantum_state', 'timeline_id'],
      response: ['anchor_id', 'status', 'timestamp', 'accuracy', 'environment', 'quantum_state', 'timeline_id', 'description'],
    },
    CheckAnchorStability: { request: ['anchor_id'], response: ['status', 'current_conditions', 'figures'] },
    AdjustAnchor: { request: ['anchor_id', 'new_environment'], response: ['status', 'new_conditions', 'figures'] },
  },
  'tms.v1.TutorialService': {
    Travel: {
      request: ['destination_time', 'location', 'timeline_id', 'traveller'],
      response: ['status', 'arrival', 'nearby_events'],
    },
    ScanEvents: { request: ['location', 'time_range', 'timeline_id', ...page], response: ['events', 'next_page_token'] },
    ManipulateEvent: {
      request: ['event_id', 'action', 'time', 'description', 'safety_check', 'timeline_id'],
      response: manipulateResponse,
    },
    MonitorParadox: { request: ['timeline_id', 'time_range'], response: paradoxReport },
    CheckTimeline: {
      request: ['timeline_id', 'significant_event'],
      response: ['status', 'state', 'event', 'primary_event', 'differences'],
    },
  },
  'tms.v1.AccountService': {
    Login: { request: ['username', 'password'], response: ['token', 'expires_at'] },
    Logout: { request: [], response: ['status'] },
    CreateAccount: { request: ['username', 'password', 'scopes'], response: ['status', 'account'] },
    ListAccounts: { request: page, response: ['accounts', 'next_page_token'] },
    DeleteAccount: { request: ['username'], response: ['status', 'username'] },
    CreateKey: {
      request: ['name', 'scopes', 'expires_at', 'account'],
      response: ['key_id', 'key', 'name', 'scopes', 'created_at', 'expires_at', 'account'],
    },
    ListKeys: { request: ['account', ...page], response: ['keys', 'next_page_token'] },
    RevokeKey: { request: ['key_id'], response: ['status', 'key_id'] },
  },
  'tms.v1.ConsoleService': {
    SaveRequest: { request: ['name', 'method', 'path', 'headers', 'body'], response: ['saved_request'] },
    ListSavedRequests: { request: page, response: ['saved_requests', 'next_page_token'] },
    GetSavedRequest: { request: ['id', 'share_token'], response: ['saved_request'] },
    DeleteSavedRequest: { request: ['id'], response: ['status', 'id'] },
    ShareSavedRequest: { request: ['id'], response: ['saved_request'] },
    UnshareSavedRequest: { request: ['id'], response: ['saved_request'] },
  },
};

/** Shared messages: at least these fields. */
const resources: [DescMessage, string[]][] = [
  [EventSchema, ['event_id', 'description', 'time', 'location', 'causes', 'status', 'timeline_id', 'supersedes', 'superseded_by', 'changes']],
  [ChangeSchema, ['action', 'time']],
  [EventOutcomeSchema, ['description', 'changes']],
  [
    TimelineSchema,
    ['timeline_id', 'kind', 'description', 'base_timeline_id', 'variation', 'created_at', 'owner', 'revision', 'event_count', 'stability'],
  ],
  [ParadoxSchema, ['kind', 'severity', 'event_ids', 'description']],
  [ParadoxFiguresSchema, ['events_analysed', 'links_analysed', 'anchors_analysed', 'duration_ms']],
  [EnvironmentSchema, ['temperature', 'humidity', 'em_field_strength']],
  [QuantumStateSchema, ['qubit_configuration', 'superposition_stability']],
  [AnchorFiguresSchema, ['predicted_error_seconds', 'tolerance_seconds', 'hold_interval_seconds', 'limiting_factor', 'samples']],
  [ApiKeySchema, ['key_id', 'name', 'scopes', 'created_at', 'expires_at', 'last_used_at', 'account']],
  [SavedRequestSchema, ['id', 'name', 'method', 'path', 'headers', 'body', 'created_at', 'owner', 'share_token']],
];

const services: DescService[] = tmsServiceFiles.flatMap((file) => file.services);
const fieldNames = (message: DescMessage) => message.fields.map((field) => field.name);

test('api-files lists every generated tms.v1 service file', () => {
  const generated = readdirSync(new URL('../../src/gen/tms/v1/', import.meta.url))
    .filter((name) => name.endsWith('_service_pb.ts'))
    .map((name) => `tms/v1/${name.replace(/_pb\.ts$/, '.proto')}`)
    .sort();
  assert.equal(tmsServiceFiles.map((file) => file.proto.name).sort(), generated);
});

test('the services and their RPCs are exactly those of the contract', () => {
  const actual = Object.fromEntries(services.map((service) => [service.typeName, service.methods.map((m) => m.name).sort()]));
  const expected = Object.fromEntries(Object.entries(contract).map(([name, rpcs]) => [name, Object.keys(rpcs).sort()]));
  assert.equal(actual, expected);
});

test("every RPC's request has exactly the spec's field names", () => {
  for (const service of services) {
    for (const method of service.methods) {
      const rpc = contract[service.typeName]?.[method.name];
      assert.ok(rpc, `${service.typeName}.${method.name} is in the contract`);
      assert.equal(fieldNames(method.input).sort(), [...rpc.request].sort(), `${method.input.typeName}`);
    }
  }
});

test("every RPC's response has at least the spec's field names", () => {
  for (const service of services) {
    for (const method of service.methods) {
      const names = new Set(fieldNames(method.output));
      for (const name of contract[service.typeName]![method.name]!.response) {
        assert.ok(names.has(name), `${method.output.typeName} has ${name}`);
      }
    }
  }
});

test('shared messages carry their documented fields', () => {
  for (const [message, expected] of resources) {
    const names = new Set(fieldNames(message));
    for (const name of expected) assert.ok(names.has(name), `${message.typeName} has ${name}`);
  }
});

test('tms.v1.SetAnchorRequest has the set-anchor fields', () => {
  const names = fieldNames(SetAnchorRequestSchema);
  for (const name of ['timestamp', 'description', 'accuracy', 'environment', 'quantum_state']) {
    assert.ok(names.includes(name), `tms.v1.SetAnchorRequest has ${name}`);
  }
  assert.is(SetAnchorRequestSchema.field.quantumState.message?.typeName, 'tms.v1.QuantumState');
  assert.is(SetAnchorRequestSchema.field.environment.message?.typeName, 'tms.v1.Environment');
});

test('timestamps and enum-like values are plain strings, never Timestamp messages or enums', () => {
  const stringNames = /(^time$|^timestamp$|_at$|_time$|^time_range$|^kind$|^status$|^stability$|^accuracy$|^severity$|^state$)/;
  const seen = new Set<string>();
  const visit = (message: DescMessage) => {
    if (seen.has(message.typeName)) return;
    seen.add(message.typeName);
    for (const field of message.fields) {
      if (stringNames.test(field.name)) {
        assert.is(field.fieldKind, 'scalar', `${message.typeName}.${field.name}`);
        assert.is(field.scalar, 9 /* ScalarType.STRING */, `${message.typeName}.${field.name}`);
      }
      if (field.message) visit(field.message);
    }
  };
  for (const method of services.flatMap((service) => service.methods)) {
    visit(method.input);
    visit(method.output);
  }
  assert.ok(seen.size > 60, `visited ${seen.size} messages`);
});

test("the spec's manipulate-event body parses and prints back with the same snake_case names", () => {
  const body = {
    event_id: '12345',
    new_outcome: { description: 'Prevented the event', changes: [{ action: 'prevent', time: '2025-01-01T00:00:00.123456789Z' }] },
    safety_check: true,
    timeline_id: 'alt-1',
  };
  const message = fromJson(ManipulateEventRequestSchema, body);
  assert.is(message.newOutcome?.changes[0]?.time, '2025-01-01T00:00:00.123456789Z');
  assert.equal(toJson(ManipulateEventRequestSchema, message, { useProtoFieldName: true }), body);
});

test("the spec's set-anchor body keeps every string exactly, expanded years and units included", () => {
  const body = {
    timestamp: '-000044-03-15T12:00:00.000001Z',
    description: 'Ides of March',
    accuracy: 'nanosecond',
    environment: { temperature: '20°C', humidity: '45%', em_field_strength: '50µT' },
    quantum_state: { qubit_configuration: '1011', superposition_stability: '99.9%' },
  };
  const message = fromJson(SetAnchorRequestSchema, body);
  assert.equal(toJson(SetAnchorRequestSchema, message, { useProtoFieldName: true }), body);
});

test('accuracy left out of set-anchor is absent, not an empty string', () => {
  const message = fromJson(SetAnchorRequestSchema, { timestamp: '2025-01-01T00:00:00Z', description: 'x' });
  assert.is(message.accuracy, undefined);
  assert.not.ok('accuracy' in (toJson(SetAnchorRequestSchema, message, { useProtoFieldName: true }) as object));
});

test.run();
