/**
 * The generated-data contract: the tables the generator writes into each
 * version's `*_a2a` module (JSON-RPC names, routes, errors, headers, content
 * types, input rules, capabilities, the a2a.json codec), as the runtime reads
 * them. Users see them through the service definition (definition.ts); only
 * generated code writes them, and a change here is a change of what the
 * generator must emit.
 */
import type { Route } from "./route-types.js";
import type { JsonRpcCodec } from "./conversion-types.js";
import type { InputRule } from "./validate.js";

export interface ErrorCatalogEntry {
  readonly name: string;
  readonly jsonrpcCode: number;
  readonly grpcStatus: string | null;
  readonly httpStatus: number | null;
  readonly reason: string | null;
  readonly domain: string | null;
  readonly message: string;
}

export interface StandardErrorEntry {
  readonly name: string;
  readonly code: number;
  readonly message: string;
  readonly grpcStatus: string | null;
  readonly httpStatus: number | null;
}

/**
 * How a JSON-RPC binding's payloads differ from the proto's ProtoJSON
 * (v0.3: a2a.json): the override table (api.jsonrpcDialect) the generator
 * reads to write the version's codec (`<base>_jsonrpc_codec`, ProtocolTables.jsonrpcCodec).
 * The runtime reads the codec only.
 */
export interface JsonRpcDialect {
  /** Enum value name → dialect string. */
  readonly enums: Readonly<Record<string, string>>;
  /** Message full name → the `kind` the dialect adds. */
  readonly kinds: Readonly<Record<string, string>>;
  /** "pkg.Message.field" → dialect key. */
  readonly renames: Readonly<Record<string, string>>;
  readonly part: {
    readonly message: string;
    readonly file: { readonly message: string; readonly uri: string; readonly bytes: string };
    readonly data: { readonly message: string; readonly field: string };
  };
  /** Messages that are one oneof whose member the dialect writes bare (told apart by `kind`). */
  readonly unions: readonly string[];
  /**
   * Fields that hold a resource name in the proto and separate ids in the dialect; `optional`: the ids a
   * request may leave out when the name is required (the first id never is).
   */
  readonly resourceNames: readonly {
    readonly message: string;
    readonly field: string;
    readonly pattern: string;
    readonly optional?: readonly string[];
  }[];
  /** Requests whose dialect form is one of their fields, the other fields derived from it. */
  readonly wrappers: readonly {
    readonly message: string;
    readonly field: string;
    readonly derived: Readonly<Record<string, string>>;
  }[];
  /** Results the dialect writes as the bare array of one field. */
  readonly arrayResults: Readonly<Record<string, string>>;
  /** Results the dialect writes as null. */
  readonly nullResults: readonly string[];
  /** Message → fields written even when they hold the proto default. */
  readonly alwaysEmit: Readonly<Record<string, readonly string[]>>;
  /** One-oneof messages written bare with a `type` naming the member: message → member field → type value. */
  readonly typedUnions?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Messages holding a map of StringList, written as the bare map of arrays: message → map field. */
  readonly listMaps?: Readonly<Record<string, string>>;
}

/** The request Content-Types a JSON-RPC server accepts (override target api.jsonrpcRequestContentTypes). */
export interface JsonRpcRequestContentTypes {
  /** Media types, lowercase, without parameters (`; charset=utf-8` is ignored). */
  readonly accept: readonly string[];
  /** JSON-RPC code of the refusal, from `errors` or `standardErrors`. */
  readonly errorCode: number;
}

/**
 * The request Content-Types an HTTP+JSON server accepts on a route that takes a body (override target
 * api.restRequestContentTypes; server-rest.ts).
 */
export interface RestRequestContentTypes {
  /** Media types, lowercase, without parameters (`; charset=utf-8` is ignored). */
  readonly accept: readonly string[];
  /** The catalog error that refuses any other type, or none, before the body is read. */
  readonly error: string;
}

/**
 * How a stream's answer starts (override target api.streamStart; server-stream.ts): `first-event`, the
 * response headers go out with the first event and a failure before it is the binding's ordinary error reply;
 * `in-stream`, the answer to a streaming method is always a stream (HTTP 200 text/event-stream), and a failure
 * before the first event is its one event (server-jsonrpc.ts).
 */
export type StreamStartMode = "first-event" | "in-stream";

/** The stream start of each HTTP binding; HTTP+JSON streams always start with their first event. */
export interface StreamStart {
  readonly jsonrpc: StreamStartMode;
  readonly rest: "first-event";
}

/** How a task takes its turns (override target api.taskTurns; the task runtime reads it). */
export interface TaskTurns {
  /** The catalog error answering a message sent to a task whose turn is still running. */
  readonly busyError: string;
}

/** The JSON-RPC ids a server takes (override target api.jsonrpcIds). */
export interface JsonRpcIds {
  /** A request without `id` is checked and served like one with id null, and answered with id null. */
  readonly absent: "answer-with-null-id";
  /** A numeric id must be an integer of at most this magnitude, so it is echoed exactly; else -32600. */
  readonly maxIntegerId: number;
}

/**
 * An optional capability the agent card declares, and the operations that need it (override target
 * api.capabilities). Applied by card-rules.ts (the card says no) and invoke.ts (the handler has no method).
 */
export interface CapabilityRule {
  /** The card member that declares it: JSON names from the card's root, e.g. "capabilities.streaming". */
  readonly declaredBy: string;
  /** RPC names that need the capability. */
  readonly operations: readonly string[];
  /** The error when the card leaves the member false or out. */
  readonly undeclared: string;
  /** The error when the card declares it but the handler has no method for the operation. */
  readonly unimplemented: string;
}

/** What a server reads from its agent card (override target api.capabilities). */
export interface CapabilityTable {
  /** Where the card lists its extensions, each `{uri, required}`: JSON names from the card's root. */
  readonly extensions: string;
  readonly rules: readonly CapabilityRule[];
}

/**
 * How a server that speaks this version and an older one (which has no version header) at the same URLs
 * splits calls (override target api.dualVersion; dual-version.ts).
 */
export interface DualVersionRule {
  /**
   * The Major.Minor versions the older side serves: a call whose A2A-Version (absent or empty: the
   * `headers.absentVersionMeans`) has one of them goes there; every other call goes to this version.
   */
  readonly olderVersions: readonly string[];
}

export interface ProtocolTables {
  /** Major.Minor, e.g. "1.0". */
  readonly protocolVersion: string;
  readonly release: string;
  /** RPC name → JSON-RPC method. */
  readonly jsonrpcMethods: Readonly<Record<string, string>>;
  readonly routes: readonly Route[];
  readonly aliases: readonly Route[];
  readonly errors: readonly ErrorCatalogEntry[];
  readonly standardErrors: readonly StandardErrorEntry[];
  readonly headers: {
    readonly versionHeader: string | null;
    readonly grpcVersionKey: string | null;
    readonly absentVersionMeans: string;
    readonly patchVersion: "ignore-patch" | "reject";
    readonly versionQueryParameter: string | null;
    readonly extensionsHeader: string;
    readonly grpcExtensionsKey: string;
  };
  readonly contentTypes: {
    readonly jsonrpc: { readonly request: string; readonly response: string; readonly stream: string };
    readonly rest: {
      readonly request: string;
      readonly response: string;
      readonly stream: string;
      readonly error: string;
    };
  };
  readonly tenantField: string | null;
  /**
   * The media types (lowercase, without parameters) a JSON-RPC request may carry, and the JSON-RPC code that
   * refuses any other or none. Absent: only `contentTypes.jsonrpc.request`, refused with -32600.
   */
  readonly jsonrpcRequestContentTypes?: JsonRpcRequestContentTypes | null;
  /**
   * The media types (lowercase, without parameters) an HTTP+JSON request to a route that takes a body may carry,
   * and the error that refuses any other or none. Absent: `contentTypes.rest.request` and application/json,
   * refused with ContentTypeNotSupportedError (InvalidRequestError in a catalog without it).
   */
  readonly restRequestContentTypes?: RestRequestContentTypes | null;
  /** When a stream's answer starts, per HTTP binding. Absent: `first-event` on both. */
  readonly streamStart?: StreamStart | null;
  /** How a task takes its turns: the error for a message to a task whose turn is running. Absent: no rule. */
  readonly taskTurns?: TaskTurns | null;
  /** Which JSON-RPC ids a server takes. Absent: an id-less request is answered with id null; integers to 2^53-1. */
  readonly jsonrpcIds?: JsonRpcIds | null;
  /** Set when JSON-RPC payloads are not the proto's ProtoJSON (v0.3): the generated a2a.json codec. */
  readonly jsonrpcCodec?: JsonRpcCodec | null;
  /**
   * Message → its REQUIRED fields (proto names) that ProtoJSON would leave out at their default value; set
   * when this version writes them anyway (protojson-write.ts).
   */
  readonly requiredJson?: Readonly<Record<string, readonly string[]>> | null;
  /**
   * Message → the rules its fields must meet in a request (validate.ts): the REQUIRED fields of the messages a
   * request can hold, as the override files amend them. Absent: requests are not checked.
   */
  readonly inputRules?: Readonly<Record<string, readonly InputRule[]>> | null;
  /**
   * RPC name → a key under which an HTTP+JSON request body may wrap the route's body field (`{"config": {…}}`
   * besides the bare config); server-rest.ts tells the two forms apart.
   */
  readonly restWrappedBodies?: Readonly<Record<string, string>> | null;
  /** The card's optional capabilities and the operations needing them. Absent: nothing is enforced. */
  readonly capabilities?: CapabilityTable | null;
  /** How a dual-version server splits calls between this version and an older one. Absent: no rule. */
  readonly dualVersion?: DualVersionRule | null;
}
