import { create, createFileRegistry, fromBinary } from '@bufbuild/protobuf';
import type { DescMessage } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import type { FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as v1 from '../../src/gen/grpc/reflection/v1/reflection_pb.ts';
import * as v1alpha from '../../src/gen/grpc/reflection/v1alpha/reflection_pb.ts';
import { AccountService } from '../../src/gen/tms/v1/account_service_pb.ts';
import { AnchorService } from '../../src/gen/tms/v1/anchor_service_pb.ts';
import { ConsoleService } from '../../src/gen/tms/v1/console_service_pb.ts';
import { EventService } from '../../src/gen/tms/v1/event_service_pb.ts';
import { ParadoxService } from '../../src/gen/tms/v1/paradox_service_pb.ts';
import { TimelineService } from '../../src/gen/tms/v1/timeline_service_pb.ts';
import { TutorialService } from '../../src/gen/tms/v1/tutorial_service_pb.ts';
import { tmsServiceFiles } from '../../src/server/grpc-infra/api-files.ts';
import { HealthState, registerHealth } from '../../src/server/grpc-infra/health.ts';
import { registerReflection } from '../../src/server/grpc-infra/reflection.ts';
import { startHarness } from './grpc-harness.ts';
import { bidiStream, reader } from '../support/grpc.ts';
import type { Harness } from './grpc-harness.ts';

const tmsServices = [EventService, TimelineService, ParadoxService, AnchorService, TutorialService, AccountService, ConsoleService];

const reflection = suite<{ harness: Harness }>('gRPC server reflection over a real h2c server');

reflection.before.each(async (context) => {
  context.harness = await startHarness((router) => {
    // As the service does it: the API (unimplemented here: reflection needs only the descriptors), health,
    // and reflection, registered before or after the others alike.
    registerReflection(router, [...tmsServiceFiles]);
    for (const service of tmsServices) router.service(service, {});
    registerHealth(router, new HealthState());
  });
});
reflection.after.each(async ({ harness }) => {
  await harness.close();
});

type RequestInit = Parameters<typeof create<typeof v1.ServerReflectionRequestSchema>>[1];

/** One reflection stream (v1 unless told): ask a question, get its answer. */
function openStream(harness: Harness, version: 'v1' | 'v1alpha' = 'v1') {
  const schemas = version === 'v1' ? v1 : v1alpha;
  const call = bidiStream(
    harness.client,
    `/grpc.reflection.${version}.ServerReflection/ServerReflectionInfo`,
    schemas.ServerReflectionRequestSchema as DescMessage,
    schemas.ServerReflectionResponseSchema as DescMessage,
  );
  const answers = reader<v1.ServerReflectionResponse | v1alpha.ServerReflectionResponse>(call);
  return {
    async ask(init: RequestInit) {
      call.write(create(schemas.ServerReflectionRequestSchema as typeof v1.ServerReflectionRequestSchema, init));
      return (await answers.next()) as v1.ServerReflectionResponse;
    },
    end: () => call.end(),
  };
}

function filesOf(answer: v1.ServerReflectionResponse): FileDescriptorProto[] {
  assert.is(answer.messageResponse.case, 'fileDescriptorResponse', JSON.stringify(answer.messageResponse.value));
  const { fileDescriptorProto } = answer.messageResponse.value as v1.FileDescriptorResponse;
  return fileDescriptorProto.map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes));
}

/** The files ordered so that each comes after the files it imports, as createFileRegistry requires. */
function dependenciesFirst(files: FileDescriptorProto[]): FileDescriptorProto[] {
  const ordered: FileDescriptorProto[] = [];
  const placed = new Set<string>();
  let remaining = files;
  while (remaining.length > 0) {
    const ready = remaining.filter((file) => file.dependency.every((name) => placed.has(name)));
    assert.ok(ready.length > 0, `missing dependencies among ${remaining.map((file) => file.name).join(', ')}`);
    for (const file of ready) {
      ordered.push(file);
      placed.add(file.name);
    }
    remaining = remaining.filter((file) => !placed.has(file.name));
  }
  return ordered;
}

function errorOf(answer: v1.ServerReflectionResponse): v1.ErrorResponse {
  assert.is(answer.messageResponse.case, 'errorResponse');
  return answer.messageResponse.value as v1.ErrorResponse;
}

const expectedServices = [
  'grpc.health.v1.Health',
  'grpc.reflection.v1.ServerReflection',
  'grpc.reflection.v1alpha.ServerReflection',
  'tms.v1.AccountService',
  'tms.v1.AnchorService',
  'tms.v1.ConsoleService',
  'tms.v1.EventService',
  'tms.v1.ParadoxService',
  'tms.v1.TimelineService',
  'tms.v1.TutorialService',
];

for (const version of ['v1', 'v1alpha'] as const) {
  reflection(`${version}: list_services names every tms.v1 service, health and reflection`, async ({ harness }) => {
    const stream = openStream(harness, version);
    const answer = await stream.ask({ host: 'localhost', messageRequest: { case: 'listServices', value: '*' } });
    assert.is(answer.validHost, 'localhost');
    assert.is(answer.originalRequest?.messageRequest.case, 'listServices');
    assert.is(answer.messageResponse.case, 'listServicesResponse');
    const names = (answer.messageResponse.value as v1.ListServiceResponse).service.map((service) => service.name);
    assert.equal(names, expectedServices);
    stream.end();
  });

  reflection(`${version}: file_containing_symbol gives EventService's file and everything it imports`, async ({ harness }) => {
    const stream = openStream(harness, version);
    const answer = await stream.ask({ messageRequest: { case: 'fileContainingSymbol', value: 'tms.v1.EventService' } });
    const files = filesOf(answer);
    assert.is(files[0]?.name, 'tms/v1/event_service.proto');
    assert.equal(files.map((file) => file.name).sort(), ['tms/v1/event.proto', 'tms/v1/event_service.proto']);
    const service = files[0]?.service.find((candidate) => candidate.name === 'EventService');
    assert.ok(service, 'the file declares EventService');
    assert.ok(service.method.some((method) => method.name === 'SearchEvents'), 'EventService has SearchEvents');

    // The answer is a complete, self-contained schema: a registry built from it resolves the request type.
    const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: dependenciesFirst(files) }));
    const search = registry.getService('tms.v1.EventService')?.methods.find((method) => method.name === 'SearchEvents');
    assert.ok(search, 'SearchEvents resolves');
    assert.equal(
      search.input.fields.map((field) => field.name),
      ['location', 'time_range', 'timeline_id', 'page_size', 'page_token'],
    );
    assert.is(search.output.field.events?.message?.typeName, 'tms.v1.Event');
    stream.end();
  });
}

reflection('file_containing_symbol finds methods, nested enums, enum values and fields; dependencies travel once per stream', async ({ harness }) => {
  const stream = openStream(harness);
  const first = filesOf(await stream.ask({ messageRequest: { case: 'fileContainingSymbol', value: 'tms.v1.TutorialService.Travel' } }));
  assert.equal(first.map((file) => file.name).sort(), ['tms/v1/event.proto', 'tms/v1/paradox.proto', 'tms/v1/tutorial_service.proto']);
  // event.proto already went down this stream: only the file asked about comes back.
  const second = filesOf(await stream.ask({ messageRequest: { case: 'fileContainingSymbol', value: '.tms.v1.ManipulateEventRequest' } }));
  assert.equal(second.map((file) => file.name), ['tms/v1/event_service.proto']);
  // A file asked for by name always comes back, even when sent before.
  const again = filesOf(await stream.ask({ messageRequest: { case: 'fileByFilename', value: 'tms/v1/event.proto' } }));
  assert.equal(again.map((file) => file.name), ['tms/v1/event.proto']);

  for (const symbol of [
    'grpc.health.v1.HealthCheckResponse.ServingStatus',
    'grpc.health.v1.HealthCheckResponse.SERVING',
    'tms.v1.SetAnchorRequest.quantum_state',
    'grpc.reflection.v1.ServerReflectionRequest.message_request',
  ]) {
    const files = filesOf(await stream.ask({ messageRequest: { case: 'fileContainingSymbol', value: symbol } }));
    assert.ok(files.length > 0, symbol);
  }
  stream.end();
});

reflection('file_by_filename returns the file with its transitive dependencies', async ({ harness }) => {
  const stream = openStream(harness);
  const files = filesOf(await stream.ask({ messageRequest: { case: 'fileByFilename', value: 'tms/v1/anchor_service.proto' } }));
  assert.equal(files.map((file) => file.name), ['tms/v1/anchor_service.proto', 'tms/v1/anchor.proto']);
  assert.equal(files[0]?.dependency, ['tms/v1/anchor.proto']);
  const health = filesOf(await stream.ask({ messageRequest: { case: 'fileByFilename', value: 'grpc/health/v1/health.proto' } }));
  assert.is(health[0]?.package, 'grpc.health.v1');
  stream.end();
});

reflection('unknown files, symbols and extensions get NOT_FOUND error responses and the stream goes on', async ({ harness }) => {
  const stream = openStream(harness);
  const questions: RequestInit[] = [
    { messageRequest: { case: 'fileByFilename', value: 'tms/v1/nothing.proto' } },
    { messageRequest: { case: 'fileContainingSymbol', value: 'tms.v1.NoSuchThing' } },
    { messageRequest: { case: 'fileContainingExtension', value: { containingType: 'tms.v1.Event', extensionNumber: 1000 } } },
    { messageRequest: { case: 'allExtensionNumbersOfType', value: 'tms.v1.NoSuchMessage' } },
  ];
  for (const question of questions) {
    const error = errorOf(await stream.ask(question));
    assert.is(error.errorCode, 5, JSON.stringify(question));
    assert.ok(error.errorMessage.length > 0);
  }
  const noQuestion = errorOf(await stream.ask({}));
  assert.is(noQuestion.errorCode, 3);

  // A known message without extensions has an empty list, not an error.
  const answer = await stream.ask({ messageRequest: { case: 'allExtensionNumbersOfType', value: 'tms.v1.Event' } });
  assert.is(answer.messageResponse.case, 'allExtensionNumbersResponse');
  assert.equal(answer.messageResponse.value, create(v1.ExtensionNumberResponseSchema, { baseTypeName: 'tms.v1.Event' }));

  // The stream still answers after the errors.
  const list = await stream.ask({ messageRequest: { case: 'listServices', value: '' } });
  assert.is(list.messageResponse.case, 'listServicesResponse');
  stream.end();
});

reflection.run();
