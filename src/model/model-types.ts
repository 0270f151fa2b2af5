/**
 * The API model: everything the emitters need, as plain data. It is built
 * from descriptors (build-model.ts), then completed by override files
 * (src/overrides/apply-overrides.ts), then resolved (resolve-api.ts: every
 * default applied once). Emitters read the resolved model only.
 */
import type { PathTemplate } from "./path-template.js";
import type { RouteQueryField, RouteVariable } from "@protoc-gen-a2a/runtime/protocol";
import type {
  CapabilityTable,
  DualVersionRule,
  ErrorCatalogEntry,
  JsonRpcDialect,
  JsonRpcIds,
  JsonRpcRequestContentTypes,
  InputRule,
  ProtocolTables,
  RestRequestContentTypes,
  StandardErrorEntry,
  StreamStart,
  TaskTurns,
} from "@protoc-gen-a2a/runtime/protocol";

export type {
  DualVersionRule,
  InputRule,
  JsonRpcDialect,
  JsonRpcIds,
  JsonRpcRequestContentTypes,
  RestRequestContentTypes,
  StreamStart,
  TaskTurns,
};

/** The runtime's capability table, with the card message its paths start from (checked, not emitted). */
export interface CapabilitiesModel extends CapabilityTable {
  /** Full name of the agent card message, e.g. lf.a2a.v1.AgentCard. */
  readonly card: string;
}

export interface FieldModel {
  readonly name: string;
  readonly jsonName: string;
  readonly number: number;
  /** "scalar" | "enum" | "message" */
  readonly kind: "scalar" | "enum" | "message";
  /** Scalar name (string, int32, …) or the full name of the enum or message. */
  readonly type: string;
  readonly repeated: boolean;
  readonly map: boolean;
  /** `(google.api.field_behavior) = REQUIRED` */
  readonly required: boolean;
  readonly oneof: string | undefined;
  /** For a map field: its key scalar and its value's kind and type (`type` is then `map<K, V>`). */
  readonly mapEntry?: { readonly key: string; readonly kind: "scalar" | "enum" | "message"; readonly type: string };
  /** The proto comment (src/model/comments.ts), for descriptions in generated documents. */
  readonly description?: string;
}

export interface MessageModel {
  readonly name: string;
  readonly fullName: string;
  readonly fields: readonly FieldModel[];
  /** The proto comment, if any. */
  readonly description?: string;
  /** The proto comments of its oneofs, by oneof name. */
  readonly oneofDescriptions?: Readonly<Record<string, string>>;
}

export interface EnumModel {
  readonly fullName: string;
  readonly values: readonly { name: string; number: number; description?: string }[];
  /** The proto comment, if any. */
  readonly description?: string;
}

export type HttpMethod = "GET" | "PUT" | "POST" | "DELETE" | "PATCH" | string;

export interface BindingModel {
  readonly method: HttpMethod;
  readonly template: PathTemplate;
  readonly segments: readonly string[];
  readonly verb: string | null;
  readonly variables: readonly RouteVariable[];
  readonly body: string | null;
  readonly bodyFields: readonly string[];
  readonly queryFields: readonly RouteQueryField[];
  readonly responseBody: string | null;
  readonly origin: "rule" | "additional_binding" | "override";
  readonly tenantVariant: boolean;
  /** For override routes: why the route exists (the override decision). */
  readonly note?: string;
}

export interface OperationModel {
  /** RPC name in the proto. */
  readonly name: string;
  /** The operation's name across versions (the v1.0 RPC name); defaults to `name`. */
  canonicalName: string;
  /** gRPC method path, e.g. /lf.a2a.v1.A2AService/SendMessage */
  readonly grpcPath: string;
  readonly input: string;
  readonly output: string;
  readonly clientStreaming: boolean;
  readonly serverStreaming: boolean;
  bindings: BindingModel[];
  jsonrpcMethod: string;
  /** JSON-RPC params as a separate schema defines them (v0.3 a2a.json), if it differs from `input`. */
  jsonrpcParams: readonly string[] | undefined;
  /** The route the specification text lists, when it differs from the proto. */
  specRoute: string | undefined;
  /** HTTP+JSON: a key under which a request body may wrap the rule's body field, besides the bare field. */
  restWrappedBody?: string;
  /** Names for the "*" placeholders of resource-name variables in docs (v0.3). */
  resourcePlaceholders: readonly string[] | undefined;
  /** The proto comment of the rpc, if any. */
  readonly description?: string;
}

export interface ContentTypes {
  readonly jsonrpc: { readonly request: string; readonly response: string; readonly stream: string };
  readonly rest: {
    readonly request: string;
    readonly response: string;
    readonly stream: string;
    readonly error: string;
  };
  readonly grpc: { readonly request: string };
}

/** The catalog shapes are the runtime's: generated code carries them as they are. */
export type ErrorModel = ErrorCatalogEntry;
export type StandardErrorModel = StandardErrorEntry;
export type HeaderRules = ProtocolTables["headers"];

/** One field's fate when a message is converted to the other version. */
export type CompatRule =
  | { readonly field: string }
  | { readonly transform: string }
  | { readonly lossy: string }
  | { readonly moved: string };

export interface CompatPair {
  /**
   * Full names: the v1.0 message (this model's package) and its v0.3 counterpart (default: same
   * name in the other package).
   */
  readonly newer: string;
  readonly older: string | undefined;
  /** Source field (proto name) → rule, per direction. Fields not listed map by name. */
  readonly toOlder: Readonly<Record<string, CompatRule>>;
  readonly toNewer: Readonly<Record<string, CompatRule>>;
  /**
   * Newer field (proto name) → key path in the older version's JSON-RPC dialect, for what the dialect holds
   * but the older proto does not: carried by the direct JSON-RPC conversions, lossy through the proto.
   */
  readonly dialectFields: Readonly<Record<string, string>>;
  /** The older request that wraps the older message, when an operation's requests differ so (v0.3 Create). */
  readonly wrappedBy?: CompatWrapper;
  /** Override entry that declared the pair, if any (else paired by name), with its source and decision. */
  readonly entry: string | undefined;
  readonly source?: string;
  readonly decision?: string;
}

/**
 * An older request message that holds the older message of a pair in `field`: its other fields are spelled
 * by `names`, patterns over fields of the newer message (`tasks/{task_id}`, `{id}`). The newer operation takes
 * the newer message itself as its request.
 */
export interface CompatWrapper {
  /** Full name of the older request message. */
  readonly message: string;
  /** Its field that holds the pair's older message. */
  readonly field: string;
  /** Each other field of the wrapper → the pattern that spells it from the newer message's fields. */
  readonly names: Readonly<Record<string, string>>;
}

export interface CompatModel {
  /** Package of the other version, e.g. a2a.v1 (from compat.unpaired). */
  otherPackage: string | undefined;
  readonly explicit: Map<string, CompatPair>;
  unpaired: { readonly newer: Readonly<Record<string, string>>; readonly older: Readonly<Record<string, string>> };
}

export interface ReplacedEntry {
  readonly id: string;
  readonly file: string;
  readonly line: number;
  readonly shipped: boolean;
}

export interface AppliedOverride {
  readonly file: string;
  readonly id: string;
  readonly target: string;
  readonly summary: string;
  readonly source: { readonly document: string; readonly section: string };
  readonly decision: string;
  /** The entry this one took the place of (`replaces:`). */
  readonly replaces: ReplacedEntry | undefined;
}

export interface ApiModel {
  /** Proto file name as in the request, e.g. v1.0.1/a2a.proto */
  readonly protoFile: string;
  readonly package: string;
  readonly service: { readonly name: string; readonly fullName: string; readonly description?: string };
  readonly operations: OperationModel[];
  readonly messages: ReadonlyMap<string, MessageModel>;
  readonly enums: ReadonlyMap<string, EnumModel>;
  /** Major.Minor of the protocol, e.g. "1.0"; from overrides. */
  protocolVersion: string | undefined;
  /** The release the proto was pinned at, e.g. "1.0.1"; from overrides. */
  release: string | undefined;
  /** Field every request carries for multi-tenancy, if any; from overrides. */
  tenantField: string | undefined;
  contentTypes: ContentTypes;
  /** The Content-Types a JSON-RPC request may carry and the code refusing others; from overrides. */
  jsonrpcRequestContentTypes: JsonRpcRequestContentTypes | undefined;
  /** The JSON-RPC ids a server takes; from overrides. */
  jsonrpcIds: JsonRpcIds | undefined;
  /** The Content-Types an HTTP+JSON request with a body may carry and the error refusing others; from overrides. */
  restRequestContentTypes: RestRequestContentTypes | undefined;
  /** When a stream's answer starts, per HTTP binding; from overrides. */
  streamStart: StreamStart | undefined;
  /** How a task takes its turns (the error for a message to a busy task); from overrides. */
  taskTurns: TaskTurns | undefined;
  errors: ErrorModel[];
  standardErrors: StandardErrorModel[];
  headers: HeaderRules | undefined;
  /** How a dual-version server splits calls between this version and an older one; from overrides. */
  dualVersion: DualVersionRule | undefined;
  /** Cross-version correspondences declared for this package (compat.* overrides). */
  compat: CompatModel | undefined;
  /** Set when the JSON-RPC binding does not speak the proto's ProtoJSON. */
  jsonrpcDialect: JsonRpcDialect | undefined;
  /** ProtoJSON writes REQUIRED fields even at their default value (from overrides). */
  requiredInJson: boolean;
  /**
   * Input rules the override files add to, change in or remove from the descriptors' REQUIRED fields
   * (`input.<Message>.<field>` targets): message full name → field or oneof name → rule, or null to remove.
   */
  readonly inputOverrides: Map<string, Map<string, InputRule | null>>;
  /** The card's optional capabilities and the operations needing them; from overrides. */
  capabilities: CapabilitiesModel | undefined;
  /** Operations of other versions that this version does not have. */
  absentOperations: { name: string; note: string }[];
  overrides: AppliedOverride[];
}
