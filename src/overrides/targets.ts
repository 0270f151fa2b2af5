/**
 * What an override entry may target, the JSON Schema of its value, and how it
 * changes the model. Target grammar:
 *
 *   Target = "api." ApiKey | "operations." RpcName "." OperationKey ;
 *
 *   Target = … | "input." MessageName "." FieldName ;
 *
 * ApiKey and OperationKey are the keys of `apiTargets` and `operationTargets`.
 * RpcName must be an RPC of the service in the entry's proto package;
 * MessageName a message of that package, FieldName one of its fields or
 * oneofs (`applyInputRule`).
 */
import type { JSONSchemaType } from "ajv";
import type {
  ApiModel,
  CapabilitiesModel,
  CompatRule,
  CompatWrapper,
  InputRule,
  ContentTypes,
  DualVersionRule,
  ErrorModel,
  HeaderRules,
  JsonRpcDialect,
  JsonRpcIds,
  JsonRpcRequestContentTypes,
  OperationModel,
  RestRequestContentTypes,
  StandardErrorModel,
  StreamStart,
  TaskTurns,
} from "../model/model-types.js";
import { applyCapabilities, capabilitiesSchema } from "./capabilities.js";

export interface ExtraRoute {
  method: string;
  template: string;
  body?: string;
}

export interface ApplyContext {
  readonly model: ApiModel;
  /**
   * The entry's target as written, and its name segment: the message of compat.<Message>, "Message.field" of
   * input.<Message>.<field>.
   */
  readonly target: string;
  readonly name: string;
  /** Where the entry is (file:line: entry "id") and what it cites, for targets that keep them in the model. */
  readonly entry: { readonly place: string; readonly source: string };
  /** Adds a binding parsed and validated like a proto rule; problems are reported with the entry's place. */
  addRoute(op: OperationModel, route: ExtraRoute, note: string): void;
}

interface TargetKind<T> {
  readonly schema: JSONSchemaType<T> | Record<string, unknown>;
  /** Applies the value; returns a one-line summary for the docs (Markdown: code in backticks), or throws a message. */
  apply(value: T, ctx: ApplyContext, op: OperationModel | undefined, decision: string): string;
}

const str = { type: "string", minLength: 1, maxLength: 4000 } as const;
/** A JSON-RPC method name: `SendMessage`, `message/send`, `tasks/pushNotificationConfig/set`. */
const methodName = { type: "string", pattern: "^[A-Za-z][A-Za-z0-9_./-]*$", maxLength: 128 } as const;
const strList = { type: "array", items: str, minItems: 1 } as const;
const obj = (properties: Record<string, unknown>, required = Object.keys(properties)) =>
  ({ type: "object", properties, required, additionalProperties: false }) as const;
/** A protocol version as negotiated: Major.Minor. */
const majorMinor = { type: "string", pattern: "^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)$" } as const;
const nullable = (s: Record<string, unknown>) => ({ anyOf: [s, { type: "null" }] });
/** A media type as compared: lowercase type/subtype (RFC 6838 §4.2 characters), no parameters. */
const mediaType = { type: "string", pattern: "^[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*$" } as const;

const contentTypesSchema = obj({
  jsonrpc: obj({ request: str, response: str, stream: str }),
  rest: obj({ request: str, response: str, stream: str, error: str }),
  grpc: obj({ request: str }),
});

const errorSchema = obj({
  name: str,
  jsonrpcCode: { type: "integer" },
  grpcStatus: nullable(str),
  httpStatus: nullable({ type: "integer", minimum: 100, maximum: 599 }),
  reason: nullable(str),
  domain: nullable(str),
  message: str,
});

const standardErrorSchema = obj({
  name: str,
  code: { type: "integer" },
  message: str,
  grpcStatus: nullable(str),
  httpStatus: nullable({ type: "integer", minimum: 100, maximum: 599 }),
});

const headersSchema = obj({
  versionHeader: nullable(str),
  grpcVersionKey: nullable({ type: "string", pattern: "^[a-z0-9-]+$" }),
  absentVersionMeans: str,
  patchVersion: { enum: ["ignore-patch", "reject"] },
  versionQueryParameter: nullable(str),
  extensionsHeader: str,
  grpcExtensionsKey: { type: "string", pattern: "^[a-z0-9-]+$" },
});

const strMap = { type: "object", additionalProperties: str } as const;

/** A resource name's optional ids that are not ids of its pattern after the first (which is always required). */
function badOptionalIds(pattern: string, optional: readonly string[]): string[] {
  const ids = [...pattern.matchAll(/\{([^}]+)\}/g)].map((x) => x[1]!);
  return optional.flatMap((id) =>
    id === ids[0]
      ? [`${pattern}: its first id ${id} cannot be optional`]
      : ids.includes(id)
        ? []
        : [`${pattern}: optional id ${id} is not an id of the pattern`],
  );
}
const dialectSchema = obj(
  {
    enums: strMap,
    kinds: strMap,
    renames: strMap,
    part: obj({
      message: str,
      file: obj({ message: str, uri: str, bytes: str }),
      data: obj({ message: str, field: str }),
    }),
    unions: strList,
    resourceNames: {
      type: "array",
      items: obj({ message: str, field: str, pattern: str, optional: strList }, ["message", "field", "pattern"]),
    },
    wrappers: { type: "array", items: obj({ message: str, field: str, derived: strMap }) },
    arrayResults: strMap,
    nullResults: strList,
    alwaysEmit: { type: "object", additionalProperties: strList },
    typedUnions: { type: "object", additionalProperties: strMap },
    listMaps: strMap,
  },
  [
    "enums",
    "kinds",
    "renames",
    "part",
    "unions",
    "resourceNames",
    "wrappers",
    "arrayResults",
    "nullResults",
    "alwaysEmit",
  ],
);

/** api.streamStart: `first-event` on both HTTP bindings, or one mode each (HTTP+JSON: only `first-event`). */
type StreamStartValue = "first-event" | StreamStart;
const firstEvent = { enum: ["first-event"] } as const;

/** Whether `name` is an error of api.errors or api.standardErrors (entries before the one naming it). */
function isErrorName(model: ApiModel, name: string): boolean {
  return model.errors.some((e) => e.name === name) || model.standardErrors.some((e) => e.name === name);
}
const notAnError = (name: string) =>
  `${name} is in neither api.errors nor api.standardErrors (entries before this one)`;

export const apiTargets: Record<string, TargetKind<never>> = {
  protocolVersion: kind<{ version: string; release: string }>(
    obj({ version: { type: "string", pattern: "^[0-9]+\\.[0-9]+$" }, release: str }),
    (v, { model }) => {
      model.protocolVersion = v.version;
      model.release = v.release;
      return `protocol version ${v.version} (release ${v.release})`;
    },
  ),
  tenantField: kind<string | null>(nullable(str), (v, { model }) => {
    if (v === null) {
      model.tenantField = undefined;
      return "no tenant field and no tenant routes";
    }
    const missing = model.operations.filter((op) => !model.messages.get(op.input)?.fields.some((f) => f.name === v));
    if (missing.length > 0) {
      throw new Error(`"${v}" is not a field of the request of ${missing.map((o) => o.name).join(", ")}`);
    }
    model.tenantField = v;
    return `\`${v}\` carries the tenant; bindings whose first segment is \`{${v}}\` are tenant variants`;
  }),
  contentTypes: kind<ContentTypes>(contentTypesSchema, (v, { model }) => {
    model.contentTypes = v;
    return (
      `JSON-RPC ${v.jsonrpc.request}; HTTP+JSON ${v.rest.request} ` +
      `(errors ${v.rest.error}); streams ${v.rest.stream}`
    );
  }),
  jsonrpcRequestContentTypes: kind<JsonRpcRequestContentTypes>(
    obj({ accept: { ...strList, items: mediaType }, errorCode: { type: "integer" } }),
    (v, { model }) => {
      const error =
        model.errors.find((e) => e.jsonrpcCode === v.errorCode)?.name ??
        model.standardErrors.find((e) => e.code === v.errorCode)?.name;
      if (!error) {
        throw new Error(
          `JSON-RPC code ${v.errorCode} is in neither api.errors nor api.standardErrors (entries before this one)`,
        );
      }
      model.jsonrpcRequestContentTypes = v;
      const types = v.accept.map((t) => `\`${t}\``).join(", ");
      return `JSON-RPC requests must be ${types}; any other Content-Type, or none, is ${v.errorCode} ${error}`;
    },
  ),
  jsonrpcIds: kind<JsonRpcIds>(
    obj({
      absent: { enum: ["answer-with-null-id"] },
      maxIntegerId: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    }),
    (v, { model }) => {
      model.jsonrpcIds = v;
      return (
        `ids: strings, null, integers up to ${v.maxIntegerId} in magnitude (others -32600); ` +
        "a request without id is answered with id null"
      );
    },
  ),
  jsonrpcMethodNames: kind<"rpc-names">({ enum: ["rpc-names"] }, (_v, { model }) => {
    const renamed = model.operations.filter((o) => o.jsonrpcMethod !== o.name).map((o) => o.name);
    if (renamed.length > 0) throw new Error(`operations.<rpc>.jsonrpcMethod renames ${renamed.join(", ")}`);
    return `JSON-RPC methods are the RPC names: ${model.operations.map((o) => `\`${o.name}\``).join(", ")}`;
  }),
  restRequestContentTypes: kind<RestRequestContentTypes>(
    obj({ accept: { ...strList, items: mediaType }, error: str }),
    (v, { model }) => {
      if (!isErrorName(model, v.error)) throw new Error(notAnError(v.error));
      model.restRequestContentTypes = v;
      const types = v.accept.map((t) => `\`${t}\``).join(", ");
      return (
        `HTTP+JSON requests to a route that takes a body must be ${types}, empty body or not; ` +
        `any other Content-Type, or none, is ${v.error}`
      );
    },
  ),
  streamStart: kind<StreamStartValue>(
    { anyOf: [{ enum: ["first-event"] }, obj({ jsonrpc: { enum: ["first-event", "in-stream"] }, rest: firstEvent })] },
    (v, { model }) => {
      const start: StreamStart = typeof v === "string" ? { jsonrpc: v, rest: v } : v;
      model.streamStart = start;
      const firstEventSaid = "headers go out with the first event; a failure before it is the ordinary error reply";
      if (start.jsonrpc === "first-event") return `streams on JSON-RPC and HTTP+JSON: ${firstEventSaid}`;
      return (
        "JSON-RPC streaming methods always answer a stream (HTTP 200 text/event-stream), a failure before the " +
        `first event its one event; HTTP+JSON streams: ${firstEventSaid}`
      );
    },
  ),
  taskTurns: kind<TaskTurns>(obj({ busyError: str }), (v, { model }) => {
    if (!model.errors.some((e) => e.name === v.busyError)) {
      throw new Error(`${v.busyError} is not in api.errors (an entry before this one)`);
    }
    model.taskTurns = v;
    return `one turn at a time: a message to a task whose turn is running is ${v.busyError}`;
  }),
  headers: kind<HeaderRules>(headersSchema, (v, { model }) => {
    model.headers = v;
    return (
      `version header ${v.versionHeader ?? "none"} (absent = ${v.absentVersionMeans}, patch: ${v.patchVersion}); ` +
      `extensions header ${v.extensionsHeader}`
    );
  }),
  dualVersion: kind<DualVersionRule>(
    obj({ olderVersions: { type: "array", items: majorMinor, minItems: 1, uniqueItems: true } }),
    (v, { model }) => {
      const h = model.headers;
      if (!h?.versionHeader) throw new Error("needs api.headers with a version header (an entry before this one)");
      if (model.protocolVersion !== undefined && v.olderVersions.includes(model.protocolVersion)) {
        throw new Error(`${model.protocolVersion} is this version, not an older one`);
      }
      model.dualVersion = v;
      const older = v.olderVersions.join(", ");
      const absent = v.olderVersions.includes(h.absentVersionMeans)
        ? ` (an absent or empty one means ${h.absentVersionMeans})`
        : "";
      return (
        `a dual-version server hands ${h.versionHeader} ${older}${absent} to the older version, ` +
        `any other value to ${model.protocolVersion ?? "this version"}`
      );
    },
  ),
  errors: kind<ErrorModel[]>({ type: "array", items: errorSchema, minItems: 1 }, (v, { model }) => {
    const codes = new Set<number>();
    for (const e of v) {
      if (codes.has(e.jsonrpcCode)) throw new Error(`JSON-RPC code ${e.jsonrpcCode} is used twice`);
      codes.add(e.jsonrpcCode);
    }
    model.errors = v;
    return `${v.length} A2A errors: ${v.map((e) => `${e.jsonrpcCode} ${e.name}`).join(", ")}`;
  }),
  standardErrors: kind<StandardErrorModel[]>(
    { type: "array", items: standardErrorSchema, minItems: 1 },
    (v, { model }) => {
      model.standardErrors = v;
      return `${v.length} standard JSON-RPC errors: ${v.map((e) => e.code).join(", ")}`;
    },
  ),
  accessErrors: kind<StandardErrorModel[]>(
    { type: "array", items: standardErrorSchema, minItems: 1 },
    (v, { model }) => {
      const taken = v.filter(
        (e) =>
          isErrorName(model, e.name) ||
          model.errors.some((x) => x.jsonrpcCode === e.code) ||
          model.standardErrors.some((x) => x.code === e.code),
      );
      if (taken.length > 0) {
        const names = taken.map((e) => `${e.name} (${e.code})`).join(", ");
        throw new Error(`${names}: name or code already in api.errors or api.standardErrors`);
      }
      model.standardErrors = [...model.standardErrors, ...v];
      const each = v.map((e) => `${e.code} ${e.name} (HTTP ${e.httpStatus ?? "-"}, gRPC ${e.grpcStatus ?? "-"})`);
      return `authentication and authorization errors: ${each.join(", ")}`;
    },
  ),
  jsonrpcDialect: kind<JsonRpcDialect>(dialectSchema, (v, { model }) => {
    const missing = [
      ...Object.keys(v.kinds),
      v.part.message,
      v.part.file.message,
      v.part.data.message,
      ...v.unions,
      ...v.resourceNames.map((r) => r.message),
      ...v.wrappers.map((w) => w.message),
      ...Object.keys(v.arrayResults),
      ...Object.keys(v.alwaysEmit),
      ...Object.keys(v.typedUnions ?? {}),
      ...Object.keys(v.listMaps ?? {}),
    ].filter((name) => !model.messages.has(name));
    if (missing.length > 0) throw new Error(`no message ${missing.join(", ")} in the request`);
    const badOptional = v.resourceNames.flatMap((r) => badOptionalIds(r.pattern, r.optional ?? []));
    if (badOptional.length > 0) throw new Error(`resourceNames: ${badOptional.join("; ")}`);
    model.jsonrpcDialect = v;
    return (
      `a2a.json dialect: ${Object.keys(v.enums).length} enum spellings, ${Object.keys(v.kinds).length} kinds, ` +
      `${v.resourceNames.length} resource names`
    );
  }),
  requiredFieldsInJson: kind<boolean>({ type: "boolean" }, (v, { model }) => {
    model.requiredInJson = v;
    return v
      ? "ProtoJSON writes REQUIRED fields even at their default value"
      : "ProtoJSON omits default values, REQUIRED fields included";
  }),
  capabilities: kind<CapabilitiesModel>(capabilitiesSchema, (v, { model }) => applyCapabilities(v, model)),
  absentOperations: kind<{ name: string; note: string }[]>(
    { type: "array", items: obj({ name: str, note: str }), minItems: 1 },
    (v, { model }) => {
      for (const a of v) {
        if (model.operations.some((o) => o.name === a.name || o.canonicalName === a.name)) {
          throw new Error(`operation ${a.name} exists in ${model.service.fullName}, so it cannot be absent`);
        }
      }
      model.absentOperations = v;
      return `absent: ${v.map((a) => a.name).join(", ")}`;
    },
  ),
};

const ruleSchema = {
  oneOf: [obj({ field: str }), obj({ transform: str }), obj({ lossy: str }), obj({ moved: str })],
};
const rulesSchema = { type: "object", additionalProperties: ruleSchema };

/** compat.<Message>: how a message of this package converts to and from its counterpart in the other version. */
export const compatPairSchema = obj(
  {
    counterpart: str,
    toOlder: rulesSchema,
    toNewer: rulesSchema,
    dialectFields: strMap,
    wrappedBy: obj({ message: str, field: str, names: strMap }),
  },
  [],
);
export const compatUnpairedSchema = obj({ otherPackage: str, newer: strMap, older: strMap });

export const operationTargets: Record<string, TargetKind<never>> = {
  jsonrpcMethod: kind<string>(methodName, (v, _c, op) => {
    op!.jsonrpcMethod = v;
    return `JSON-RPC method \`${v}\``;
  }),
  canonicalName: kind<string>(str, (v, _c, op) => {
    op!.canonicalName = v;
    return `same operation as ${v} in other versions`;
  }),
  jsonrpcParams: kind<string[]>(strList, (v, _c, op) => {
    op!.jsonrpcParams = v;
    return `JSON-RPC params: ${v.join(", ")}`;
  }),
  specRoute: kind<string>({ type: "string", pattern: "^(GET|POST|PUT|PATCH|DELETE) /" }, (v, _c, op) => {
    op!.specRoute = v;
    return `the specification lists \`${v}\``;
  }),
  resourcePlaceholders: kind<string[]>(strList, (v, _c, op) => {
    op!.resourcePlaceholders = v;
    return `docs name the \`*\` of its resource names ${v.map((p) => `\`{${p}}\``).join(", ")}`;
  }),
  restWrappedBody: kind<string>({ type: "string", pattern: "^[a-z][A-Za-z0-9]*$" }, (v, { model }, op) => {
    const bodies = op!.bindings.filter((b) => b.body !== null && b.body !== "*");
    if (bodies.length === 0) throw new Error(`no HTTP binding of ${op!.name} has a field as its body`);
    op!.restWrappedBody = v;
    return `the HTTP+JSON body may also be \`{"${v}": …}\` around the body field (${model.package})`;
  }),
  extraRoutes: kind<ExtraRoute[]>(
    {
      type: "array",
      minItems: 1,
      items: obj({ method: { enum: ["GET", "POST", "PUT", "PATCH", "DELETE"] }, template: str, body: str }, [
        "method",
        "template",
      ]),
    },
    (v, ctx, op, decision) => {
      for (const r of v) ctx.addRoute(op!, r, decision);
      return `also served: ${v.map((r) => `\`${r.method} ${r.template}\``).join(", ")}`;
    },
  ),
};

/** The value of an `input.<Message>.<field>` entry. */
export interface InputRuleValue {
  required: boolean;
  minItems?: number;
  waivedFrom?: string[];
}

export const inputRuleSchema = obj(
  {
    required: { type: "boolean" },
    minItems: { type: "integer", minimum: 1, maximum: 1000 },
    waivedFrom: { type: "array", items: { type: "string", pattern: "^[0-9]+\\.[0-9]+$" }, minItems: 1 },
  },
  ["required"],
);

/**
 * input.<Message>.<field>: sets (required: true) or removes (required: false) the input rule of a field or oneof;
 * returns the docs summary, or throws a message naming what does not exist.
 */
export function applyInputRule(model: ApiModel, message: string, field: string, v: InputRuleValue): string {
  const fullName = `${model.package}.${message}`;
  const msg = model.messages.get(fullName);
  if (!msg) throw new Error(`no message ${fullName}`);
  const f = msg.fields.find((x) => x.name === field);
  if (!f && !msg.fields.some((x) => x.oneof === field)) throw new Error(`${fullName} has no field or oneof ${field}`);
  if (v.minItems !== undefined && !(f?.repeated && !f.map)) throw new Error(`minItems needs a list; ${field} is not`);
  if (!v.required && (v.minItems !== undefined || v.waivedFrom !== undefined))
    throw new Error("minItems and waivedFrom need required: true");
  const rules = model.inputOverrides.get(fullName) ?? new Map<string, InputRule | null>();
  model.inputOverrides.set(fullName, rules);
  const rule: InputRule = {
    field,
    ...(v.minItems !== undefined ? { minItems: v.minItems } : {}),
    ...(v.waivedFrom ? { waivedFrom: v.waivedFrom } : {}),
  };
  rules.set(field, v.required ? rule : null);
  if (!v.required) return `requests may leave \`${field}\` of ${fullName} unset`;
  const what = f ? `\`${field}\`` : `one member of oneof \`${field}\``;
  const min = v.minItems !== undefined ? ` with at least ${v.minItems} item(s)` : "";
  const waived = v.waivedFrom ? `; requests converted from ${v.waivedFrom.join(", ")} may leave it unset` : "";
  return `requests must set ${what} of ${fullName}${min}${waived}`;
}

type CompatPairValue = {
  counterpart?: string;
  toOlder?: Record<string, CompatRule>;
  toNewer?: Record<string, CompatRule>;
  dialectFields?: Record<string, string>;
  wrappedBy?: CompatWrapper;
};

function compatOf(model: ApiModel): NonNullable<ApiModel["compat"]> {
  model.compat ??= { otherPackage: undefined, explicit: new Map(), unpaired: { newer: {}, older: {} } };
  return model.compat;
}

/** compat.<Message> (key "pair") and compat.unpaired: the compat plan's inputs (src/compat/compat-plan.ts). */
export const compatTargets: Record<string, TargetKind<never>> = {
  pair: kind<CompatPairValue>(compatPairSchema, (v, { model, target, name, entry }, _op, decision) => {
    const fullName = `${model.package}.${name}`;
    if (!model.messages.has(fullName)) throw new Error(`target "${target}" names no message ${fullName}`);
    compatOf(model).explicit.set(fullName, {
      newer: fullName,
      older: v.counterpart,
      toOlder: v.toOlder ?? {},
      toNewer: v.toNewer ?? {},
      dialectFields: v.dialectFields ?? {},
      ...(v.wrappedBy ? { wrappedBy: v.wrappedBy } : {}),
      entry: entry.place,
      source: entry.source,
      decision,
    });
    const rules = Object.keys(v.toOlder ?? {}).length + Object.keys(v.toNewer ?? {}).length;
    return `${fullName} ↔ ${v.counterpart ?? "same name"}: ${rules} field rules`;
  }),
  unpaired: kind<{ otherPackage: string; newer: Record<string, string>; older: Record<string, string> }>(
    compatUnpairedSchema,
    (v, { model }) => {
      const compat = compatOf(model);
      compat.otherPackage = v.otherPackage;
      compat.unpaired = { newer: v.newer, older: v.older };
      const unpaired = [...Object.keys(v.newer), ...Object.keys(v.older)].join(", ");
      return `counterparts in ${v.otherPackage}; no counterpart: ${unpaired}`;
    },
  ),
};

/** input.<Message>.<field> (key "rule"). */
export const inputTargets: Record<string, TargetKind<never>> = {
  rule: kind<InputRuleValue>(inputRuleSchema, (v, { model, target, name }) => {
    const dot = name.indexOf(".");
    try {
      return applyInputRule(model, name.slice(0, dot), name.slice(dot + 1), v);
    } catch (e) {
      throw new Error(`target "${target}": ${(e as Error).message}`);
    }
  }),
};

/**
 * Every target kind, by scope: the override grammar's targets resolve to one of these (apply-overrides.ts), and
 * scripts/build-assets.js compiles one validator per entry, named `<scope>.<key>`.
 */
export const targetTable = {
  api: apiTargets,
  operations: operationTargets,
  compat: compatTargets,
  input: inputTargets,
} as const;

export type TargetScope = keyof typeof targetTable;

function kind<T>(
  schema: Record<string, unknown>,
  apply: (value: T, ctx: ApplyContext, op: OperationModel | undefined, decision: string) => string,
): TargetKind<never> {
  return { schema, apply } as unknown as TargetKind<never>;
}
