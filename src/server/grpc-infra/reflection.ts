import { fromBinary, toBinary } from '@bufbuild/protobuf';
import type { DescFile } from '@bufbuild/protobuf';
import type { ConnectRouter } from '@connectrpc/connect';
import * as v1 from '../../gen/grpc/reflection/v1/reflection_pb.ts';
import * as v1alpha from '../../gen/grpc/reflection/v1alpha/reflection_pb.ts';
import { ReflectionIndex } from './reflection-index.ts';

/**
 * Serves gRPC server reflection (`grpc.reflection.v1` and the older `v1alpha` that many tools still call).
 * list_services names exactly the services registered on `router` (read at the first question, when every
 * route is in place, so registration order does not matter). Files are described from `files` plus the
 * files of those services, each with its transitive dependencies.
 */
export function registerReflection(router: ConnectRouter, files: DescFile[]): void {
  let index: ReflectionIndex | undefined;
  const currentIndex = (): ReflectionIndex => {
    if (!index) {
      const served = router.handlers.map((handler) => handler.service);
      index = new ReflectionIndex(
        [...files, ...served.map((service) => service.file)],
        served.map((service) => service.typeName),
      );
    }
    return index;
  };

  router.service(v1.ServerReflection, {
    async *serverReflectionInfo(requests) {
      const sentFiles = new Set<string>();
      for await (const request of requests) yield currentIndex().answer(request, sentFiles);
    },
  });

  // v1alpha has the same messages and field numbers as v1, so a binary round trip converts between them.
  router.service(v1alpha.ServerReflection, {
    async *serverReflectionInfo(requests) {
      const sentFiles = new Set<string>();
      for await (const request of requests) {
        const asV1 = fromBinary(v1.ServerReflectionRequestSchema, toBinary(v1alpha.ServerReflectionRequestSchema, request));
        const answer = currentIndex().answer(asV1, sentFiles);
        yield fromBinary(v1alpha.ServerReflectionResponseSchema, toBinary(v1.ServerReflectionResponseSchema, answer));
      }
    },
  });
}
