import type { DescMethod, DescService } from '@bufbuild/protobuf';
import { createRegistry } from '@bufbuild/protobuf';
import { AccountService } from '../../src/gen/tms/v1/account_service_pb.ts';
import { AnchorService } from '../../src/gen/tms/v1/anchor_service_pb.ts';
import { ConsoleService } from '../../src/gen/tms/v1/console_service_pb.ts';
import { EventService } from '../../src/gen/tms/v1/event_service_pb.ts';
import { ParadoxService } from '../../src/gen/tms/v1/paradox_service_pb.ts';
import { TimelineService } from '../../src/gen/tms/v1/timeline_service_pb.ts';
import { TutorialService } from '../../src/gen/tms/v1/tutorial_service_pb.ts';
import { file_tms_v1_error_details } from '../../src/gen/tms/v1/error_details_pb.ts';
import { file_tms_v1_paradox } from '../../src/gen/tms/v1/paradox_pb.ts';

/** Every tms.v1 service, from the generated descriptors (the same ones the server registers). */
export const services: DescService[] = [
  EventService,
  TimelineService,
  ParadoxService,
  AnchorService,
  TutorialService,
  AccountService,
  ConsoleService,
];

/** `/tms.v1.EventService/SearchEvents` → its method descriptor. */
export const rpcByPath: ReadonlyMap<string, DescMethod> = new Map(
  services.flatMap((service) => service.methods.map((method) => [`/${service.typeName}/${method.name}`, method] as const)),
);

/** Error detail types, for decoding the `details` of an error. */
export const detailRegistry = createRegistry(file_tms_v1_error_details, file_tms_v1_paradox);
