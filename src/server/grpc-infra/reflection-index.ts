import { create, toBinary } from '@bufbuild/protobuf';
import type { DescEnum, DescExtension, DescFile, DescMessage, MessageInitShape } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { ServerReflectionResponseSchema } from '../../gen/grpc/reflection/v1/reflection_pb.ts';
import type { ServerReflectionRequest, ServerReflectionResponse } from '../../gen/grpc/reflection/v1/reflection_pb.ts';

/** gRPC status code numbers, as reflection's ErrorResponse carries them. */
const grpcCode = { invalidArgument: 3, notFound: 5 } as const;

type ResponseBody = MessageInitShape<typeof ServerReflectionResponseSchema>['messageResponse'];

/**
 * Everything server reflection answers from: the given files and, transitively, their dependencies, indexed
 * by file name, by fully-qualified symbol and by extension. Built once; each stream keeps its own
 * `sentFiles` so a dependency travels once per stream.
 */
export class ReflectionIndex {
  readonly #filesByName = new Map<string, DescFile>();
  readonly #fileBySymbol = new Map<string, DescFile>();
  /** Extendee type name → extension number → declaring file. */
  readonly #extensions = new Map<string, Map<number, DescFile>>();
  readonly #messageNames = new Set<string>();
  readonly #serviceNames: string[];
  readonly #encoded = new Map<string, Uint8Array>();

  /** `files` are described (with their dependencies); `serviceNames` are the services list_services names. */
  constructor(files: readonly DescFile[], serviceNames: readonly string[]) {
    for (const file of files) this.#addFile(file);
    this.#serviceNames = [...new Set(serviceNames)].sort();
  }

  get serviceNames(): readonly string[] {
    return this.#serviceNames;
  }

  answer(request: ServerReflectionRequest, sentFiles: Set<string>): ServerReflectionResponse {
    return create(ServerReflectionResponseSchema, {
      validHost: request.host,
      originalRequest: request,
      messageResponse: this.#body(request.messageRequest, sentFiles),
    });
  }

  #body(question: ServerReflectionRequest['messageRequest'], sentFiles: Set<string>): ResponseBody {
    switch (question.case) {
      case 'listServices':
        return {
          case: 'listServicesResponse',
          value: { service: this.#serviceNames.map((name) => ({ name })) },
        };
      case 'fileByFilename': {
        const file = this.#filesByName.get(question.value);
        return file ? this.#fileResponse(file, sentFiles) : notFound(`file ${JSON.stringify(question.value)} not found`);
      }
      case 'fileContainingSymbol': {
        const symbol = withoutLeadingDot(question.value);
        const file = this.#fileBySymbol.get(symbol);
        return file ? this.#fileResponse(file, sentFiles) : notFound(`symbol ${JSON.stringify(symbol)} not found`);
      }
      case 'fileContainingExtension': {
        const extendee = withoutLeadingDot(question.value.containingType);
        const number = question.value.extensionNumber;
        const file = this.#extensions.get(extendee)?.get(number);
        return file
          ? this.#fileResponse(file, sentFiles)
          : notFound(`extension ${number} of ${JSON.stringify(extendee)} not found`);
      }
      case 'allExtensionNumbersOfType': {
        const typeName = withoutLeadingDot(question.value);
        if (!this.#messageNames.has(typeName)) return notFound(`message type ${JSON.stringify(typeName)} not found`);
        const numbers = [...(this.#extensions.get(typeName)?.keys() ?? [])].sort((a, b) => a - b);
        return { case: 'allExtensionNumbersResponse', value: { baseTypeName: typeName, extensionNumber: numbers } };
      }
      default:
        return {
          case: 'errorResponse',
          value: { errorCode: grpcCode.invalidArgument, errorMessage: 'message_request: no question was set' },
        };
    }
  }

  /** The file asked about (always), then those of its transitive dependencies this stream has not had yet. */
  #fileResponse(file: DescFile, sentFiles: Set<string>): ResponseBody {
    const protos: Uint8Array[] = [this.#encode(file)];
    sentFiles.add(file.proto.name);
    const pending = [...file.dependencies];
    for (let dependency = pending.pop(); dependency; dependency = pending.pop()) {
      if (sentFiles.has(dependency.proto.name)) continue;
      sentFiles.add(dependency.proto.name);
      protos.push(this.#encode(dependency));
      pending.push(...dependency.dependencies);
    }
    return { case: 'fileDescriptorResponse', value: { fileDescriptorProto: protos } };
  }

  #encode(file: DescFile): Uint8Array {
    let bytes = this.#encoded.get(file.proto.name);
    if (!bytes) this.#encoded.set(file.proto.name, (bytes = toBinary(FileDescriptorProtoSchema, file.proto)));
    return bytes;
  }

  #addFile(file: DescFile): void {
    if (this.#filesByName.has(file.proto.name)) return;
    this.#filesByName.set(file.proto.name, file);
    for (const dependency of file.dependencies) this.#addFile(dependency);
    for (const message of file.messages) this.#addMessage(file, message);
    for (const descEnum of file.enums) this.#addEnum(file, descEnum);
    for (const extension of file.extensions) this.#addExtension(file, extension);
    for (const service of file.services) {
      this.#fileBySymbol.set(service.typeName, file);
      for (const method of service.methods) this.#fileBySymbol.set(`${service.typeName}.${method.name}`, file);
    }
  }

  #addMessage(file: DescFile, message: DescMessage): void {
    this.#messageNames.add(message.typeName);
    this.#fileBySymbol.set(message.typeName, file);
    for (const field of message.fields) this.#fileBySymbol.set(`${message.typeName}.${field.name}`, file);
    for (const oneof of message.oneofs) this.#fileBySymbol.set(`${message.typeName}.${oneof.name}`, file);
    for (const nested of message.nestedMessages) this.#addMessage(file, nested);
    for (const nested of message.nestedEnums) this.#addEnum(file, nested);
    for (const extension of message.nestedExtensions) this.#addExtension(file, extension);
  }

  #addEnum(file: DescFile, descEnum: DescEnum): void {
    this.#fileBySymbol.set(descEnum.typeName, file);
    // Enum values are scoped beside their enum, not inside it (C++ scoping rules).
    const scope = descEnum.typeName.slice(0, descEnum.typeName.length - descEnum.name.length);
    for (const value of descEnum.values) this.#fileBySymbol.set(`${scope}${value.name}`, file);
  }

  #addExtension(file: DescFile, extension: DescExtension): void {
    this.#fileBySymbol.set(extension.typeName, file);
    let byNumber = this.#extensions.get(extension.extendee.typeName);
    if (!byNumber) this.#extensions.set(extension.extendee.typeName, (byNumber = new Map()));
    byNumber.set(extension.number, file);
  }
}

function notFound(message: string): ResponseBody {
  return { case: 'errorResponse', value: { errorCode: grpcCode.notFound, errorMessage: message } };
}

function withoutLeadingDot(name: string): string {
  return name.startsWith('.') ? name.slice(1) : name;
}
