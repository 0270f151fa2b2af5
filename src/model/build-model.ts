/**
 * Descriptors → ApiModel, one per service that gets output (see
 * src/overrides/select-services.ts).
 *
 * Reads the service, its methods and streaming flags, every message and enum
 * of the file and of its imports (so field types resolve), JSON names,
 * `(google.api.field_behavior) = REQUIRED`, and each method's
 * `(google.api.http)` rule with its additional bindings.
 */
import { getOption, hasOption, ScalarType } from "@bufbuild/protobuf";
import type { DescExtension, DescField, DescFile, DescMessage, DescMethod } from "@bufbuild/protobuf";
import { nestedTypes } from "@bufbuild/protobuf/reflect";
import type { ApiModel, EnumModel, FieldModel, MessageModel, OperationModel } from "./model-types.js";
import { buildBinding, type RawRule } from "./http-binding.js";
import type { Problems } from "../generation-error.js";
import { type CommentReader, commentReader } from "./comments.js";

const FIELD_BEHAVIOR_REQUIRED = 2;

interface HttpRuleValue {
  pattern: { case: string | undefined; value?: unknown };
  body: string;
  responseBody: string;
  additionalBindings: HttpRuleValue[];
}

export interface Extensions {
  readonly http: DescExtension | undefined;
  readonly fieldBehavior: DescExtension | undefined;
}

export function findExtensions(files: readonly DescFile[]): Extensions {
  let http: DescExtension | undefined;
  let fieldBehavior: DescExtension | undefined;
  for (const f of files) {
    for (const t of nestedTypes(f)) {
      if (t.kind !== "extension") continue;
      if (t.typeName === "google.api.http") http = t;
      if (t.typeName === "google.api.field_behavior") fieldBehavior = t;
    }
  }
  return { http, fieldBehavior };
}

export function buildModels(
  files: readonly DescFile[],
  allFiles: readonly DescFile[],
  ext: Extensions,
  problems: Problems,
  include: (serviceFullName: string) => boolean = () => true,
): ApiModel[] {
  const commentOf = commentReader();
  const messages = new Map<string, MessageModel>();
  const enums = new Map<string, EnumModel>();
  for (const f of allFiles) {
    for (const t of nestedTypes(f)) {
      if (t.kind === "message") messages.set(t.typeName, messageModel(t, ext, commentOf));
      if (t.kind === "enum")
        enums.set(t.typeName, {
          fullName: t.typeName,
          values: t.values.map((v) => ({ name: v.name, number: v.number, ...described(commentOf(v)) })),
          ...described(commentOf(t)),
        });
    }
  }
  const models: ApiModel[] = [];
  for (const file of files) {
    for (const service of file.services) {
      if (!include(service.typeName)) continue;
      const operations = service.methods.map((m) => operationModel(file, m, { ext, commentOf }, messages, problems));
      models.push({
        protoFile: file.proto.name,
        package: file.proto.package,
        service: { name: service.name, fullName: service.typeName, ...described(commentOf(service)) },
        operations,
        messages,
        enums,
        protocolVersion: undefined,
        release: undefined,
        tenantField: undefined,
        contentTypes: {
          jsonrpc: { request: "application/json", response: "application/json", stream: "text/event-stream" },
          rest: {
            request: "application/json",
            response: "application/json",
            stream: "text/event-stream",
            error: "application/json",
          },
          grpc: { request: "application/grpc" },
        },
        jsonrpcRequestContentTypes: undefined,
        jsonrpcIds: undefined,
        restRequestContentTypes: undefined,
        streamStart: undefined,
        taskTurns: undefined,
        errors: [],
        standardErrors: [],
        headers: undefined,
        dualVersion: undefined,
        absentOperations: [],
        capabilities: undefined,
        jsonrpcDialect: undefined,
        requiredInJson: false,
        inputOverrides: new Map(),
        compat: undefined,
        overrides: [],
      });
    }
  }
  return models;
}

/** `{ description }` when there is one, else nothing (optional properties are left out, never undefined). */
function described(text: string | undefined): { description?: string } {
  return text === undefined ? {} : { description: text };
}

function messageModel(desc: DescMessage, ext: Extensions, commentOf: CommentReader): MessageModel {
  const oneofs = desc.oneofs.flatMap((o) => {
    const text = commentOf(o);
    return text === undefined ? [] : [[o.name, text] as const];
  });
  return {
    name: desc.name,
    fullName: desc.typeName,
    fields: desc.fields.map((f) => fieldModel(f, ext, commentOf)),
    ...described(commentOf(desc)),
    ...(oneofs.length > 0 ? { oneofDescriptions: Object.fromEntries(oneofs) } : {}),
  };
}

function fieldModel(f: DescField, ext: Extensions, commentOf: CommentReader): FieldModel {
  const behaviors =
    ext.fieldBehavior && hasOption(f, ext.fieldBehavior)
      ? (getOption(f, ext.fieldBehavior) as unknown as number[])
      : [];
  const base = {
    name: f.name,
    jsonName: f.jsonName,
    number: f.number,
    required: behaviors.includes(FIELD_BEHAVIOR_REQUIRED),
    oneof: f.oneof?.name,
    ...described(commentOf(f)),
  };
  switch (f.fieldKind) {
    case "scalar":
      return { ...base, kind: "scalar", type: scalarName(f.scalar), repeated: false, map: false };
    case "enum":
      return { ...base, kind: "enum", type: f.enum.typeName, repeated: false, map: false };
    case "message":
      return { ...base, kind: "message", type: f.message.typeName, repeated: false, map: false };
    case "list":
      return {
        ...base,
        kind: f.listKind,
        type:
          f.listKind === "scalar" ? scalarName(f.scalar) : f.listKind === "enum" ? f.enum.typeName : f.message.typeName,
        repeated: true,
        map: false,
      };
    case "map":
      return {
        ...base,
        kind: "message",
        type: `map<${scalarName(f.mapKey)}, ${mapValueName(f)}>`,
        repeated: false,
        map: true,
        mapEntry: { key: scalarName(f.mapKey), kind: f.mapKind, type: mapValueName(f) },
      };
  }
}

function mapValueName(f: DescField & { fieldKind: "map" }): string {
  return f.mapKind === "scalar" ? scalarName(f.scalar) : f.mapKind === "enum" ? f.enum.typeName : f.message.typeName;
}

function scalarName(t: ScalarType): string {
  return ScalarType[t].toLowerCase();
}

function operationModel(
  file: DescFile,
  m: DescMethod,
  { ext, commentOf }: { readonly ext: Extensions; readonly commentOf: CommentReader },
  messages: ReadonlyMap<string, MessageModel>,
  problems: Problems,
): OperationModel {
  const input = messages.get(m.input.typeName)!;
  const output = messages.get(m.output.typeName)!;
  const op: OperationModel = {
    name: m.name,
    canonicalName: m.name,
    grpcPath: `/${m.parent.typeName}/${m.name}`,
    input: input.fullName,
    output: output.fullName,
    clientStreaming: m.methodKind === "client_streaming" || m.methodKind === "bidi_streaming",
    serverStreaming: m.methodKind === "server_streaming" || m.methodKind === "bidi_streaming",
    bindings: [],
    jsonrpcMethod: m.name,
    jsonrpcParams: undefined,
    specRoute: undefined,
    resourcePlaceholders: undefined,
    ...described(commentOf(m)),
  };
  const place = `${file.proto.name}: rpc ${m.parent.typeName}.${m.name}`;
  if (op.clientStreaming) {
    const kind = m.methodKind === "bidi_streaming" ? "bidirectional streaming" : "client streaming";
    problems.add(
      `${place}: a ${kind} method cannot be generated (A2A's bindings have unary and server streaming only)`,
    );
  }
  if (!ext.http || !hasOption(m, ext.http)) return op;
  const rule = getOption(m, ext.http) as unknown as HttpRuleValue;
  const ctx = { place, input, output, messages, problems };
  const rules: [HttpRuleValue, "rule" | "additional_binding"][] = [
    [rule, "rule"],
    ...rule.additionalBindings.map((b) => [b, "additional_binding"] as [HttpRuleValue, "additional_binding"]),
  ];
  for (const [r, origin] of rules) {
    const raw = rawRule(r, origin, ctx.place, problems);
    if (!raw) continue;
    const b = buildBinding(raw, origin, ctx);
    if (b) op.bindings.push(b);
  }
  return op;
}

function rawRule(r: HttpRuleValue, origin: string, place: string, problems: Problems): RawRule | undefined {
  const p = r.pattern;
  let method: string;
  let path: string;
  if (p.case === undefined) {
    problems.add(`${place}: google.api.http rule has no pattern (get, put, post, delete, patch or custom)`);
    return undefined;
  }
  if (p.case === "custom") {
    const c = p.value as { kind: string; path: string };
    method = c.kind.toUpperCase();
    path = c.path;
  } else {
    method = p.case.toUpperCase();
    path = p.value as string;
  }
  return {
    method,
    path,
    body: r.body,
    responseBody: r.responseBody,
    nestedBindings: origin === "rule" ? 0 : r.additionalBindings.length,
  };
}
