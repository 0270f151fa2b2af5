/**
 * The last model stage, after the overrides are applied and the route table is built, before any emitter:
 * ApiModel → ResolvedApi, the one type the emitters read.
 *
 * Rules: every default is applied here, once, and nowhere downstream. What an override file must give (the
 * protocol version and its release, set together by api.protocolVersion) has no default: a model without it
 * is a problem naming the service, its proto file and the override files (the caller says why), collected
 * with the others before anything is written. What has a default gets it here: the header rules
 * (headersDefault, a service with no version header) and each operation's JSON-RPC params (the input
 * message's fields). What an override may leave out because the service does not have it (tenant field,
 * dialect, capabilities, …) is null, the runtime tables' own "none".
 */
import type { CapabilityTable } from "@protoc-gen-a2a/runtime/protocol";
import type {
  ApiModel,
  DualVersionRule,
  HeaderRules,
  JsonRpcDialect,
  JsonRpcIds,
  JsonRpcRequestContentTypes,
  OperationModel,
  RestRequestContentTypes,
  StreamStart,
  TaskTurns,
} from "./model-types.js";
import type { RouteTable } from "./route-table.js";
import type { Problems } from "../generation-error.js";

/** The model's parts that need no resolving: the emitters read them as the overrides left them. */
type Settled =
  | "protoFile"
  | "package"
  | "service"
  | "messages"
  | "enums"
  | "contentTypes"
  | "errors"
  | "standardErrors"
  | "requiredInJson"
  | "inputOverrides"
  | "absentOperations"
  | "overrides";

/** An operation whose JSON-RPC params are resolved. */
export type ResolvedOperation = DeepReadonly<ResolvedOperationFields>;

interface ResolvedOperationFields extends Omit<OperationModel, "jsonrpcParams"> {
  /** JSON-RPC params by name: a separate schema's (v0.3 a2a.json, override), else the input message's fields. */
  readonly jsonrpcParams: readonly string[];
}

/** `T` with every object, array and map in it read-only: what an emitter may not change. */
export type DeepReadonly<T> =
  T extends ReadonlyMap<infer K, infer V>
    ? ReadonlyMap<K, DeepReadonly<V>>
    : T extends readonly (infer E)[]
      ? readonly DeepReadonly<E>[]
      : T extends (...args: never[]) => unknown
        ? T
        : T extends object
          ? { readonly [P in keyof T]: DeepReadonly<T[P]> }
          : T;

/**
 * One service's finished API: nothing optional is left for an emitter to default, and nothing in it can be
 * changed: its parts are read-only all the way down, so an emitter that writes into it does not compile.
 * (Freezing the objects as well cost about 5 ms of a 55 ms run, for what the types already hold.)
 */
export type ResolvedApi = DeepReadonly<ResolvedFields>;

interface ResolvedFields extends Pick<ApiModel, Settled> {
  readonly operations: readonly ResolvedOperationFields[];
  /** Major.Minor of the protocol, e.g. "1.0" (api.protocolVersion). */
  readonly protocolVersion: string;
  /** The release the proto was pinned at, e.g. "1.0.1" (api.protocolVersion). */
  readonly release: string;
  /** The version and extension header rules: api.headers, else headersDefault. */
  readonly headers: HeaderRules;
  /** Where `headers` come from; the overrides page lists them only when an entry set them. */
  readonly headersFrom: "override" | "default";
  readonly tenantField: string | null;
  readonly jsonrpcRequestContentTypes: JsonRpcRequestContentTypes | null;
  readonly jsonrpcIds: JsonRpcIds | null;
  readonly restRequestContentTypes: RestRequestContentTypes | null;
  readonly streamStart: StreamStart | null;
  readonly taskTurns: TaskTurns | null;
  readonly jsonrpcDialect: JsonRpcDialect | null;
  readonly dualVersion: DualVersionRule | null;
  /** The card's optional capabilities and the operations needing them (the runtime's table). */
  readonly capabilities: CapabilityTable | null;
  /** Every route of the service, ordered by match priority (route-table.ts). */
  readonly routeTable: RouteTable;
}

/**
 * The header rules of a service whose override files set none: no version header, metadata key or query
 * parameter (so no version negotiation), and the A2A extensions header.
 */
export const headersDefault: HeaderRules = {
  versionHeader: null,
  grpcVersionKey: null,
  absentVersionMeans: "",
  patchVersion: "ignore-patch",
  versionQueryParameter: null,
  extensionsHeader: "A2A-Extensions",
  grpcExtensionsKey: "a2a-extensions",
};

/**
 * @param tables            each model's route table
 * @param noProtocolVersion the problem for a model without api.protocolVersion (it knows the options and files)
 * @returns the resolved models, in order; a model with a problem is left out, so the caller throws first
 */
export function resolveApis(
  models: readonly ApiModel[],
  tables: ReadonlyMap<ApiModel, RouteTable>,
  problems: Problems,
  noProtocolVersion: (m: ApiModel) => string,
): ResolvedApi[] {
  return models.flatMap((m) => {
    if (m.protocolVersion === undefined || m.release === undefined) {
      problems.add(noProtocolVersion(m));
      return [];
    }
    const shared = sharedJsonRpcMethods(m);
    for (const problem of shared) problems.add(problem);
    return shared.length > 0 ? [] : [resolveApi(m, m.protocolVersion, m.release, tables.get(m)!)];
  });
}

/**
 * A JSON-RPC method name that several operations of the service have, once the overrides are in: a server
 * could reach only one of them, and the OpenRPC document would list the name twice.
 */
function sharedJsonRpcMethods(m: ApiModel): string[] {
  const byMethod = new Map<string, string[]>();
  for (const op of m.operations) byMethod.set(op.jsonrpcMethod, [...(byMethod.get(op.jsonrpcMethod) ?? []), op.name]);
  const where = `${m.protoFile}: service ${m.service.fullName}`;
  return [...byMethod]
    .filter(([, ops]) => ops.length > 1)
    .map(([method, ops]) => `${where}: ${ops.join(" and ")} share the JSON-RPC method "${method}" (${SET_BY})`);
}

/** The override target that names an operation's JSON-RPC method. */
const SET_BY = "operations.<rpc>.jsonrpcMethod";

function resolveApi(m: ApiModel, protocolVersion: string, release: string, routeTable: RouteTable): ResolvedApi {
  const caps = m.capabilities;
  return {
    protoFile: m.protoFile,
    package: m.package,
    service: m.service,
    operations: m.operations.map((op) => ({
      ...op,
      jsonrpcParams: op.jsonrpcParams ?? m.messages.get(op.input)!.fields.map((f) => f.jsonName),
    })),
    messages: m.messages,
    enums: m.enums,
    contentTypes: m.contentTypes,
    errors: m.errors,
    standardErrors: m.standardErrors,
    requiredInJson: m.requiredInJson,
    inputOverrides: m.inputOverrides,
    absentOperations: m.absentOperations,
    overrides: m.overrides,
    protocolVersion,
    release,
    headers: m.headers ?? headersDefault,
    headersFrom: m.headers ? "override" : "default",
    tenantField: m.tenantField ?? null,
    jsonrpcRequestContentTypes: m.jsonrpcRequestContentTypes ?? null,
    jsonrpcIds: m.jsonrpcIds ?? null,
    restRequestContentTypes: m.restRequestContentTypes ?? null,
    streamStart: m.streamStart ?? null,
    taskTurns: m.taskTurns ?? null,
    jsonrpcDialect: m.jsonrpcDialect ?? null,
    dualVersion: m.dualVersion ?? null,
    capabilities: caps ? { extensions: caps.extensions, rules: caps.rules } : null,
    routeTable,
  };
}
