import type { DescMethod, DescService } from '@bufbuild/protobuf';
import { AccountService } from '../../gen/tms/v1/account_service_pb.ts';
import { AnchorService } from '../../gen/tms/v1/anchor_service_pb.ts';
import { ConsoleService } from '../../gen/tms/v1/console_service_pb.ts';
import { EventService } from '../../gen/tms/v1/event_service_pb.ts';
import { ParadoxService } from '../../gen/tms/v1/paradox_service_pb.ts';
import { TimelineService } from '../../gen/tms/v1/timeline_service_pb.ts';
import { TutorialService } from '../../gen/tms/v1/tutorial_service_pb.ts';

/** Every tms.v1 service, served on all protocols and listed by reflection. */
export const tmsServices: DescService[] = [
  EventService,
  TimelineService,
  ParadoxService,
  AnchorService,
  TutorialService,
  AccountService,
  ConsoleService,
];

/** RPC name → its method descriptor, for tools that work by name (OpenAPI, console, authorization). */
export const rpcMethods: ReadonlyMap<string, DescMethod> = new Map(
  tmsServices.flatMap((service) => service.methods.map((method) => [`${service.typeName}.${method.name}`, method] as const)),
);
