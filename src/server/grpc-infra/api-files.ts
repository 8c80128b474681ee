import type { DescFile } from '@bufbuild/protobuf';
import { file_grpc_health_v1_health } from '../../gen/grpc/health/v1/health_pb.ts';
import { file_tms_v1_account_service } from '../../gen/tms/v1/account_service_pb.ts';
import { file_tms_v1_anchor_service } from '../../gen/tms/v1/anchor_service_pb.ts';
import { file_tms_v1_console_service } from '../../gen/tms/v1/console_service_pb.ts';
import { file_tms_v1_event_service } from '../../gen/tms/v1/event_service_pb.ts';
import { file_tms_v1_paradox_service } from '../../gen/tms/v1/paradox_service_pb.ts';
import { file_tms_v1_timeline_service } from '../../gen/tms/v1/timeline_service_pb.ts';
import { file_tms_v1_tutorial_service } from '../../gen/tms/v1/tutorial_service_pb.ts';

/** The files declaring every tms.v1 service (their imports come along as dependencies). */
export const tmsServiceFiles: readonly DescFile[] = [
  file_tms_v1_event_service,
  file_tms_v1_timeline_service,
  file_tms_v1_paradox_service,
  file_tms_v1_anchor_service,
  file_tms_v1_tutorial_service,
  file_tms_v1_account_service,
  file_tms_v1_console_service,
];

export const healthFile: DescFile = file_grpc_health_v1_health;
