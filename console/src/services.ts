import type { DescMethod } from '@bufbuild/protobuf';
import { createRegistry } from '@bufbuild/protobuf';
import { tmsServices } from '../../src/server/connect/services.ts';
import { file_tms_v1_error_details } from '../../src/gen/tms/v1/error_details_pb.ts';
import { file_tms_v1_paradox } from '../../src/gen/tms/v1/paradox_pb.ts';

/** Every tms.v1 service: the list the server registers, from the generated descriptors. */
export const services = tmsServices;

/** `/tms.v1.EventService/SearchEvents` → its method descriptor. */
export const rpcByPath: ReadonlyMap<string, DescMethod> = new Map(
  services.flatMap((service) => service.methods.map((method) => [`/${service.typeName}/${method.name}`, method] as const)),
);

/** Error detail types, for decoding the `details` of an error. */
export const detailRegistry = createRegistry(file_tms_v1_error_details, file_tms_v1_paradox);
