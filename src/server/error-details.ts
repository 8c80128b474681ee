import { createRegistry, fromJson, toBinary, type DescMessage, type JsonValue, type MessageShape } from '@bufbuild/protobuf';
import { file_tms_v1_error_details } from '../gen/tms/v1/error_details_pb.ts';
import { file_tms_v1_paradox } from '../gen/tms/v1/paradox_pb.ts';
import type { ErrorDetail } from '../domain/errors.ts';

/** Every message an ApiError detail may name in its `type`. */
export const errorDetailFiles = [file_tms_v1_error_details, file_tms_v1_paradox];
const registry = createRegistry(...errorDetailFiles);

export interface TypedDetail {
  desc: DescMessage;
  value: MessageShape<DescMessage>;
}

/**
 * The detail as its protobuf message; undefined for a type no proto file declares, or a `debug` that does
 * not fit its message (the detail then travels as JSON only: an error report must never fail itself).
 */
export function typedDetail(detail: ErrorDetail): TypedDetail | undefined {
  const desc = registry.getMessage(detail.type);
  if (!desc) return undefined;
  try {
    return { desc, value: fromJson(desc, detail.debug as JsonValue, { ignoreUnknownFields: true }) };
  } catch {
    return undefined;
  }
}

/** Connect's error JSON form of a detail: type, base64 of the binary message (unpadded), and readable debug. */
export function detailJson(detail: ErrorDetail): { type: string; value?: string; debug: Record<string, unknown> } {
  const typed = typedDetail(detail);
  if (!typed) return { type: detail.type, debug: detail.debug };
  const value = Buffer.from(toBinary(typed.desc, typed.value)).toString('base64').replace(/=+$/, '');
  return { type: detail.type, value, debug: detail.debug };
}
