/**
 * google.rpc.ErrorInfo and google.rpc.Status as protobuf-es message types,
 * built from their descriptors here so that neither google/rpc protos nor
 * generated code for them are needed (field numbers from google/rpc/error_details.proto
 * and google/rpc/status.proto). Used for gRPC status details.
 */
import { create, createFileRegistry, type DescMessage } from "@bufbuild/protobuf";
import {
  FileDescriptorProtoSchema,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  file_google_protobuf_any,
} from "@bufbuild/protobuf/wkt";

const { OPTIONAL, REPEATED } = FieldDescriptorProto_Label;
const { STRING, MESSAGE, INT32 } = FieldDescriptorProto_Type;

const registry = createFileRegistry(
  create(FileDescriptorProtoSchema, {
    name: "protoc_gen_a2a/google_rpc.proto",
    package: "google.rpc",
    syntax: "proto3",
    dependency: ["google/protobuf/any.proto"],
    messageType: [
      {
        name: "ErrorInfo",
        field: [
          { name: "reason", number: 1, label: OPTIONAL, type: STRING, jsonName: "reason" },
          { name: "domain", number: 2, label: OPTIONAL, type: STRING, jsonName: "domain" },
          {
            name: "metadata",
            number: 3,
            label: REPEATED,
            type: MESSAGE,
            typeName: ".google.rpc.ErrorInfo.MetadataEntry",
            jsonName: "metadata",
          },
        ],
        nestedType: [
          {
            name: "MetadataEntry",
            field: [
              { name: "key", number: 1, label: OPTIONAL, type: STRING, jsonName: "key" },
              { name: "value", number: 2, label: OPTIONAL, type: STRING, jsonName: "value" },
            ],
            options: { mapEntry: true },
          },
        ],
      },
      {
        name: "Status",
        field: [
          { name: "code", number: 1, label: OPTIONAL, type: INT32, jsonName: "code" },
          { name: "message", number: 2, label: OPTIONAL, type: STRING, jsonName: "message" },
          {
            name: "details",
            number: 3,
            label: REPEATED,
            type: MESSAGE,
            typeName: ".google.protobuf.Any",
            jsonName: "details",
          },
        ],
      },
    ],
  }),
  () => file_google_protobuf_any.proto,
);

export const ErrorInfoSchema = registry.getMessage("google.rpc.ErrorInfo") as DescMessage;
export const StatusSchema = registry.getMessage("google.rpc.Status") as DescMessage;
export const ERROR_INFO_TYPE_URL = "type.googleapis.com/google.rpc.ErrorInfo";
