/**
 * The named transforms of the compat plan (compat-proto-transforms.ts writes them for the proto path),
 * written as code for the direct conversions (compat-json-module.ts): toward
 * the newer version they read the older dialect JSON `x` and fill the newer
 * message `m`; toward the older version they read `m` and fill the dialect
 * object `o`. Each gives the result, and reports the losses (reasons from the
 * plan or src/compat/loss-reasons.ts), of the proto path's transform followed
 * by the a2a.json codec (test/compat-json.test.ts compares them). A transform
 * without an entry here fails the generation, naming the pair and the step.
 */
import type { DescMessage } from "@bufbuild/protobuf";
import { camel } from "../../compat/dialect-ir.js";
import { LOSS, LOSS_BEFORE } from "../../compat/loss-reasons.js";
import { FILE_KEYS, PART_KEYS } from "../../compat/part-keys.js";
import type { CompatTransformName } from "../../compat/transforms.js";
import { code, lit, prop, type Code } from "./compat-json-fields.js";
import { guarded, indented, packed, widthOf } from "../print/code-layout.js";

export interface DecodeCtx {
  readonly d03: DescMessage;
  readonly d10: DescMessage;
  /** Whether types are written (TypeScript). */
  readonly typed: boolean;
  /** ": JsonObject" in TypeScript, "" in JavaScript. */
  readonly json: Code;
  /**
   * Expression: the dialect value of an older field of `obj` (of type `desc`, default x / d03);
   * null or undefined when absent.
   */
  read(name03: string, obj?: string, desc?: DescMessage): string;
  /**
   * Expression: the value `v` of that field read as the older proto reads it (throws as fromJson
   * would); `where` is the path of its object (default a).
   */
  value(name03: string, v: string, desc?: DescMessage, where?: Code): Code;
  /** Statement: sets a newer field of `m`. */
  set(name10: string, expr: Code): Code;
  /**
   * Expression: the dialect JSON `v` of an older message field, converted to its newer pair;
   * `parentAt` is the path of its parent.
   */
  toNewer(name03: string, v: string, desc?: DescMessage, parentAt?: Code): Code;
  /** Statement: reports the loss of the dialect key `key` (`reasonExpr` is code). */
  lose(key: string, reasonExpr: Code): Code;
  /** Statement (lines): reports the keys of `obj` that the older message `desc` has no field for. */
  unknownKeys(desc: DescMessage, obj: string, atExpr: string): Code[];
  /** Statement (lines): reports the keys of `obj` not in `known`, as keys `what` has no field for. */
  keyCheck(what: string, obj: string, atExpr: string, known: readonly string[]): Code[];
  /** Expression: a new newer message of `typeShort` at its zero value. */
  zero(typeShort: string): Code;
  /** Statement (lines): `const name = ` a new newer message of `typeShort` at its zero value. */
  declareZero(name: string, typeShort: string): Code[];
  /** The dialect key of an older field. */
  key03(name03: string, desc?: DescMessage): string;
  rt(name: string): Code;
  /** The older message `typeShort`. */
  older(typeShort: string): DescMessage;
  /** The dialect key path of a newer field the pair's dialectFields carry, if any. */
  dialectField(name10: string): string | undefined;
  /** The reason of the plan's lossy step for a field of a newer message (short name), toward the older version. */
  planReason(newerShort: string, field: string): string;
  /** Expression: the function (json, at, lost) → newer message of an older message field, for list elements. */
  fnToNewer(name03: string, desc?: DescMessage): string;
  /** The dialect's resource name pattern of an older field of d03. */
  resource(name03: string): Resource;
}

/** A resource name pattern, e.g. tasks/{id}: the a2a.json keys (dotted) it names. */
export interface Resource {
  readonly keys: readonly string[];
}

export interface EncodeCtx {
  readonly d03: DescMessage;
  readonly d10: DescMessage;
  readonly typed: boolean;
  readonly json: Code;
  /** Expression: a newer field of `m`. */
  get(name10: string): string;
  /**
   * Statement: writes the older field (type `desc`, default d03) into `target` (default o) when
   * toJson would, enums spelled by the dialect.
   */
  put(name03: string, expr: string, target?: string, desc?: DescMessage): Code;
  /**
   * Expression: `expr`, a message of the newer field `name10` of `desc` (default d10), converted
   * to older dialect JSON.
   */
  toOlder(name10: string, expr: string, desc?: DescMessage): Code;
  /** Statement: reports the loss of a newer field (by its proto name). */
  lose(name10: string, reasonExpr: Code): Code;
  /** The dialect key of an older field. */
  key(name03: string, desc?: DescMessage): string;
  rt(name: string): Code;
  older(typeShort: string): DescMessage;
  /** The number of a value of the enum of a newer field, the field given by a dotted path from d10. */
  enumNumber(path10: string, valueName: string): number;
  /** The reason of the plan's lossy step for a field of a newer message (short name), toward the older version. */
  planReason(newerShort: string, field: string): string;
  dialectField(name10: string): string | undefined;
  resource(name03: string): Resource;
}

export interface TransformCode {
  toNewer(c: DecodeCtx): Code[];
  toOlder(c: EncodeCtx): Code[];
}

const transformCodes: Readonly<Record<Exclude<CompatTransformName, "part">, TransformCode>> = {
  taskState: {
    toNewer: (c) => [code`if ((v = ${c.read("state")}) != null) ${c.set("state", c.value("state", "v"))}`],
    toOlder: (c) => [c.put("state", c.get("state"))],
  },

  finalFromState: {
    // `final` is recomputed on the newer side: read only to check it as fromJson would.
    toNewer: (c) => [code`if ((v = ${c.read("final")}) != null) ${c.value("final", "v")};`],
    toOlder: (c) => {
      const final = ["COMPLETED", "CANCELED", "FAILED", "REJECTED", "INPUT_REQUIRED"].map(
        (n) => `status.state === ${c.enumNumber("status.state", n)} /* ${n} */`,
      );
      const tests = packed(final.map((x, i) => (i < final.length - 1 ? `${x} ||` : x)));
      return [
        code`const status = ${c.get("status")};`,
        `if (status !== undefined) {`,
        code`  ${prop("o", c.key("status"))} = ${c.toOlder("status", "status")};`,
        "  if (",
        ...indented("    ", tests),
        code`  ) ${prop("o", c.key("final"))} = true;`,
        `}`,
      ];
    },
  },

  blocking: {
    toNewer: (c) => [
      c.set("return_immediately", code`!((v = ${c.read("blocking")}) != null && ${c.value("blocking", "v")})`),
    ],
    toOlder: (c) => [c.put("blocking", `!${c.get("return_immediately")}`)],
  },

  configurationBlocks: {
    toOlder: (c) => {
      const blocking = c.key("blocking", c.older("SendMessageConfiguration"));
      const conf = c.toOlder("configuration", "configuration");
      return [
        code`const configuration = ${c.get("configuration")};`,
        code`${prop("o", c.key("configuration"))} = configuration ? ${conf} : { ${blocking}: true };`,
      ];
    },
    // Toward the newer version the configuration converts by its pair.
    toNewer: (c) => [
      code`if ((v = ${c.read("configuration")}) != null) ${c.set("configuration", c.toNewer("configuration", "v"))}`,
    ],
  },

  historyLength: {
    toNewer: (c) => [
      code`if ((v = ${c.read("history_length")}) != null) {`,
      code`  const n = ${c.value("history_length", "v")};`,
      code`  if (n !== 0) ${c.set("history_length", "n")}`,
      `}`,
    ],
    toOlder: (c) => [
      code`const historyLength = ${c.get("history_length")};`,
      ...guarded("historyLength === 0", c.lose("history_length", lit(LOSS.noHistory))),
      code`else if (historyLength !== undefined) { ${c.put("history_length", "historyLength")} }`,
    ],
  },

  schemes: {
    toNewer: (c) => [
      code`if ((v = ${c.read("schemes")}) != null) {`,
      code`  const schemes = ${c.value("schemes", "v")};`,
      code`  if (schemes[0] !== undefined) ${c.set("scheme", "schemes[0]")}`,
      [
        `  if (schemes.length > 1) `,
        c.lose(c.key03("schemes"), `${lit(LOSS_BEFORE.droppedSchemes)} + schemes.slice(1).join(", ")`),
      ],
      `}`,
    ],
    toOlder: (c) => [code`if (${c.get("scheme")}) ${prop("o", c.key("schemes"))} = [${c.get("scheme")}];`],
  },

  /** The older PushNotificationConfig inside SendMessageConfiguration ↔ the newer flat TaskPushNotificationConfig. */
  inlinePushConfig: {
    toNewer: (c) => {
      const cfg = c.older("PushNotificationConfig");
      const r = (n: string) => c.read(n, "p", cfg);
      return [
        code`if ((v = ${c.read("push_notification")}) != null) {`,
        code`  const p = ${c.rt("object")}(v, a, ${lit(cfg.typeName)});`,
        code`  const pa = ${c.rt("at")}(a, ${lit(c.key03("push_notification"))});`,
        ...indented("  ", c.unknownKeys(cfg, "p", "pa")),
        ...indented("  ", c.declareZero("t", "TaskPushNotificationConfig")),
        ...["url", "token", "id"].map(
          (n) =>
            code`  if ((v = ${r(n)}) != null) { const s = ${c.value(n, "v", cfg, "pa")}; if (s !== "") t.${n} = s; }`,
        ),
        [
          code`  if ((v = ${r("authentication")}) != null) `,
          code`t.authentication = ${c.toNewer("authentication", "v", cfg, "pa")};`,
        ],
        code`  ${c.set("task_push_notification_config", "t")}`,
        `}`,
      ];
    },
    toOlder: (c) => {
      const cfg = c.older("PushNotificationConfig");
      const tpc = c.d10.fields.find((f) => f.name === "task_push_notification_config")!.message!;
      const tenant = c.planReason("TaskPushNotificationConfig", "tenant");
      return [
        code`const t = ${c.get("task_push_notification_config")};`,
        `if (t !== undefined) {`,
        code`  if (t.tenant) ${c.lose("task_push_notification_config.tenant", lit(tenant))}`,
        code`  const p${c.json} = {};`,
        ...["id", "url", "token"].map((n) => code`  ${c.put(n, `t.${n}`, "p", cfg)}`),
        [
          `  if (t.authentication !== undefined) `,
          code`${prop("p", c.key("authentication", cfg))} = ${c.toOlder("authentication", "t.authentication", tpc)};`,
        ],
        code`  ${prop("o", c.key("push_notification"))} = p;`,
        `}`,
      ];
    },
  },

  taskName: resourceName("name", ["id"]),
  configName: resourceName("name", ["task_id", "id"]),
  parentName: resourceName("parent", ["task_id"]),

  /** The newer flat TaskPushNotificationConfig ↔ the older {name (tasks/{taskId}/…/{config.id}), config}. */
  pushConfig: {
    toNewer: (c) => {
      const cfg = c.older("PushNotificationConfig");
      const r = (n: string) => c.read(n, "p", cfg);
      const key = c.key03("push_notification_config");
      return [
        ...readIds(c, "name", ["task_id", "id"]),
        code`if ((v = ${c.read("push_notification_config")}) != null) {`,
        code`  const pa = ${c.rt("at")}(a, ${lit(key)});`,
        code`  const p = ${c.rt("object")}(v, pa, ${lit(cfg.typeName)});`,
        ...indented("  ", c.unknownKeys(cfg, "p", "pa")),
        ...["url", "token"].map(
          (n) =>
            code`  if ((v = ${r(n)}) != null) { const s = ${c.value(n, "v", cfg, "pa")}; if (s !== "") m.${n} = s; }`,
        ),
        code`  if ((v = ${r("id")}) != null) {`,
        code`    const s = ${c.value("id", "v", cfg, "pa")};`,
        `    if (s !== "" && m.id === "") m.id = s;`,
        `  }`,
        [
          code`  if ((v = ${r("authentication")}) != null) `,
          code`m.authentication = ${c.toNewer("authentication", "v", cfg, "pa")};`,
        ],
        `}`,
      ];
    },
    toOlder: (c) => {
      const cfg = c.older("PushNotificationConfig");
      const [taskKey, idKey] = c.resource("name").keys;
      if (taskKey === undefined || idKey !== `${c.key("push_notification_config")}.id`)
        throw new Error(`compat-json: ${c.d03.typeName}.name: the pattern does not name {taskId} and {config.id}`);
      return [
        code`${prop("o", taskKey)} = m.taskId;`,
        `{`,
        code`  const p${c.json} = { id: m.id };`,
        ...["url", "token"].map((n) => code`  ${c.put(n, `m.${n}`, "p", cfg)}`),
        [
          code`  if (m.authentication !== undefined) ${prop("p", c.key("authentication", cfg))} = `,
          code`${c.toOlder("authentication", "m.authentication")};`,
        ],
        code`  ${prop("o", c.key("push_notification_config"))} = p;`,
        `}`,
      ];
    },
  },

  /**
   * The newer supported_interfaces (each with its protocol_version) ↔ the older url, preferred_transport,
   * additional_interfaces and protocol_version; capabilities.extended_agent_card ↔
   * supports_authenticated_extended_card. Runs after the field steps (it completes the capabilities).
   */
  cardInterfaces: {
    toNewer: (c) => [
      `{`,
      [
        code`  const version = /^(\\d+\\.\\d+)/.exec((v = ${c.read("protocol_version")}) != null ? `,
        code`${c.value("protocol_version", "v")} : "")?.[1] ?? "0.3";`,
      ],
      code`  const cardUrl = (v = ${c.read("url")}) != null ? ${c.value("url", "v")} : "";`,
      [
        code`  const preferred = (v = ${c.read("preferred_transport")}) != null ? `,
        code`${c.value("preferred_transport", "v")} : "";`,
      ],
      code`  const offered${c.typed ? ": [string, string][]" : ""} = [[cardUrl, preferred || "JSONRPC"]];`,
      code`  if ((v = ${c.read("additional_interfaces")}) != null)`,
      [
        code`    for (const i of ${c.rt("each")}(v, ${c.rt("at")}(a, ${lit(c.key03("additional_interfaces"))}), `,
        code`${lit(`${c.d03.typeName}.additional_interfaces`)}, lost, ${c.fnToNewer("additional_interfaces")}))`,
      ],
      `      offered.push([i.url, i.protocolBinding]);`,
      `  for (const [url, binding] of offered) {`,
      `    const known = m.supportedInterfaces.some((i) => i.url === url && i.protocolBinding === binding);`,
      `    if (url === "" || known) continue;`,
      ...indented("    ", c.declareZero("i", "AgentInterface")),
      `    i.url = url;`,
      `    i.protocolBinding = binding || "JSONRPC";`,
      `    i.protocolVersion = version;`,
      `    m.supportedInterfaces.push(i);`,
      `  }`,
      `}`,
      [
        code`if ((v = ${c.read("supports_authenticated_extended_card")}) != null && `,
        code`${c.value("supports_authenticated_extended_card", "v")})`,
      ],
      code`  (m.capabilities ??= ${c.zero("AgentCapabilities")}).extendedAgentCard = true;`,
    ],
    toOlder: (c) => [
      `{`,
      `  const all = m.supportedInterfaces;`,
      `  const legacy = all.filter((i) => /^0\\./.test(i.protocolVersion));`,
      `  const kept = legacy.length > 0 ? legacy : all;`,
      ...indented(
        "  ",
        guarded("legacy.length === 0 && all.length > 0", c.lose("supported_interfaces", lit(LOSS.noOlderInterface))),
      ),
      `  const first = kept[0];`,
      `  if (first !== undefined) {`,
      code`    ${prop("o", c.key("url"))} = first.url;`,
      code`    if (first.protocolBinding !== "") ${prop("o", c.key("preferred_transport"))} = first.protocolBinding;`,
      code`    ${prop("o", c.key("protocol_version"))} = first.protocolVersion || "0.3";`,
      `  }`,
      [
        code`  if (kept.length > 0) ${prop("o", c.key("additional_interfaces"))} = `,
        `kept.map((i) => ({ url: i.url, transport: i.protocolBinding }));`,
      ],
      `}`,
      code`if (m.capabilities?.extendedAgentCard) ${prop("o", c.key("supports_authenticated_extended_card"))} = true;`,
    ],
  },
};

/**
 * The Part: the dialect's part rule (the a2a.json codec: {kind:"text", text} | {kind:"file", file:{uri|bytes,
 * mimeType}} | {kind:"data", data}) and the `part` transform, as the whole body of both functions. With the
 * pair's dialectFields (filename: file.name, metadata: metadata) those travel too; without them they are lost.
 * Reading refuses an unknown kind and a part without its content, and reports a key that a part or its file
 * does not have (part-keys.ts), as the codec does; writing leaves a part without content out (the function
 * returns undefined) and reports it.
 */
export const partCode = {
  toNewer: (c: DecodeCtx): Code[] => {
    const rt = c.rt;
    const { metadata, filename } = partDialectFields(c);
    return [
      code`const x = ${rt("object")}(j, a, ${lit(c.d03.typeName)});`,
      ...c.declareZero("m", c.d10.name),
      ...c.keyCheck(c.d03.typeName, "x", "a", PART_KEYS),
      metadata
        ? code`if (x["metadata"] != null) m.metadata = ${rt("struct")}(x["metadata"], a, "a2a.json Part metadata");`
        : code`if (x["metadata"] !== undefined) ${c.lose("metadata", lit(c.planReason(c.d10.name, "metadata")))}`,
      `const file = x["file"];`,
      [
        code`const kind = ${rt("partKindOf")}(x) ?? `,
        code`${rt("refuseKind")}(${rt("pathOf")}(a), ${lit(c.d03.typeName)}, x["kind"], "text, file or data");`,
      ],
      ...(filename
        ? guarded(
            code`kind !== "file" && ${rt("isObject")}(file) && file["name"] !== undefined`,
            code`${rt("lose")}(lost, a, "file.name", ${lit(LOSS.fileNameOffFilePart)});`,
          )
        : guarded(
            code`${rt("isObject")}(file) && file["name"] !== undefined`,
            code`${rt("lose")}(lost, a, "file.name", ${lit(c.planReason(c.d10.name, "filename"))});`,
          )),
      code`if (kind === "text") m.content = { case: "text", value: ${rt("str")}(x["text"], a, "a2a.v1.Part.text") };`,
      `else if (kind === "file") {`,
      code`  const fa = ${rt("at")}(a, "file");`,
      code`  const f = ${rt("object")}(file, fa, "a2a.v1.FilePart");`,
      ...indented("  ", c.keyCheck("a2a.v1.FilePart", "f", "fa", FILE_KEYS)),
      [
        `  if (f["uri"] != null && f["bytes"] != null) `,
        code`${rt("invalid")}(fa, "oneof a2a.v1.FilePart.file (set by both uri and bytes)", f);`,
      ],
      [
        `  if (f["uri"] != null) `,
        code`m.content = { case: "url", value: ${rt("str")}(f["uri"], fa, "a2a.v1.FilePart.file_with_uri") };`,
      ],
      [
        `  else if (f["bytes"] != null) `,
        code`m.content = { case: "raw", value: ${rt("bytes")}(f["bytes"], fa, "a2a.v1.FilePart.file_with_bytes") };`,
      ],
      code`  else ${rt("refuse")}(fa, "a2a.v1.FilePart", f, "a file needs uri or bytes");`,
      code`  if (f["mimeType"] != null) m.mediaType = ${rt("str")}(f["mimeType"], fa, "a2a.v1.FilePart.mime_type");`,
      ...(filename
        ? [code`  if (f["name"] != null) m.filename = ${rt("str")}(f["name"], fa, "a2a.json FileBase name");`]
        : []),
      [
        `} else m.content = { case: "data", value: `,
        code`${rt("valueOf")}(${rt("object")}(x["data"], a, "a2a.v1.DataPart.data"), a, "a2a.v1.DataPart.data") };`,
      ],
      `return m;`,
    ];
  },
  toOlder: (c: EncodeCtx): Code[] => {
    const rt = c.rt;
    const { metadata, filename } = partDialectFields(c);
    const noName = (reason: string) =>
      filename ? [code`    if (m.filename !== "") ${c.lose("filename", lit(reason))}`] : [];
    return [
      ...(metadata
        ? []
        : [code`if (m.metadata !== undefined) ${c.lose("metadata", lit(c.planReason(c.d10.name, "metadata")))}`]),
      ...(filename
        ? []
        : [code`if (m.filename !== "") ${c.lose("filename", lit(c.planReason(c.d10.name, "filename")))}`]),
      `const content = m.content;`,
      code`let o${c.json};`,
      `switch (content.case) {`,
      `  case "text":`,
      code`    if (m.mediaType) ${c.lose("media_type", lit(LOSS.textPartMediaType))}`,
      ...noName(LOSS.textPartFileName),
      `    o = { kind: "text", text: content.value };`,
      `    break;`,
      `  case "url":`,
      `  case "raw": {`,
      [
        code`    const f${c.json} = content.case === "url" ? `,
        code`{ uri: content.value } : { bytes: ${rt("base64")}(content.value) };`,
      ],
      `    if (m.mediaType) f["mimeType"] = m.mediaType;`,
      ...(filename ? [`    if (m.filename !== "") f["name"] = m.filename;`] : []),
      `    o = { kind: "file", file: f };`,
      `    break;`,
      `  }`,
      `  case "data": {`,
      code`    const v = ${rt("valueJson")}(content.value);`,
      code`    const data = ${rt("isObject")}(v) ? v : { value: v };`,
      [`    if (data !== v) `, code`${c.lose("data", lit(LOSS.dataWrapped))}`],
      code`    if (m.mediaType) ${c.lose("media_type", lit(LOSS.dataPartMediaType))}`,
      ...noName(LOSS.dataPartFileName),
      `    o = { kind: "data", data };`,
      `    break;`,
      `  }`,
      `  default:`,
      code`    ${rt("lose")}(lost, a, "", ${rt("PART_LEFT_OUT")});`,
      `    return undefined;`,
      `}`,
      ...(metadata ? [code`if (m.metadata !== undefined) o["metadata"] = ${rt("structJson")}(m.metadata);`] : []),
      `return o;`,
    ];
  },
};

/**
 * The Part's dialectFields, which this code knows only at the keys a2a.json has them
 * (FileBase.name, PartBase.metadata).
 */
function partDialectFields(c: { dialectField(name10: string): string | undefined; d10: DescMessage }): {
  metadata: boolean;
  filename: boolean;
} {
  const metadata = c.dialectField("metadata");
  const filename = c.dialectField("filename");
  if ((metadata !== undefined && metadata !== "metadata") || (filename !== undefined && filename !== "file.name")) {
    throw new Error(
      `compat-json: ${c.d10.typeName} dialectFields: ` +
        `the Part conversion knows metadata at "metadata" and filename at "file.name" only`,
    );
  }
  return { metadata: metadata !== undefined, filename: filename !== undefined };
}

/**
 * An older resource name (tasks/{id}, …) that a2a.json spells as the ids its pattern names, and the newer
 * id fields (`ids10`, in the pattern's order). Each id is carried as it is: a2a.json and the newer version
 * both hold the ids apart, so an id with a "/" (which the older proto's name could not hold) passes whole.
 */
function resourceName(name03: string, ids10: readonly string[]): TransformCode {
  return {
    toNewer: (c) => readIds(c, name03, ids10),
    toOlder: (c) => {
      const keys = c.resource(name03).keys;
      return ids10.map((id, i) => `${prop("o", keys[i]!)} = m.${camel(id)};`);
    },
  };
}

function readIds(c: DecodeCtx, name03: string, ids10: readonly string[]): Code[] {
  const { keys } = c.resource(name03);
  if (keys.length !== ids10.length)
    throw new Error(
      `compat-json: ${c.d03.typeName}.${name03}: the pattern names ${keys.length} ids, not ${ids10.length}`,
    );
  const read = (k: string): Code => {
    const [root, sub] = k.split(".") as [string, string | undefined];
    return sub === undefined
      ? prop("x", root)
      : code`${c.rt("isObject")}(${prop("x", root)}) ? ${prop(prop("x", root), sub)} : undefined`;
  };
  return keys.flatMap((k, i) => {
    const head = code`m.${camel(ids10[i]!)} = ${c.rt("resourceId")}(`;
    const rest = `a, ${lit(k)}, ${lit(`${c.d03.typeName} ${k}`)}`;
    const one = code`${head}${read(k)}, ${rest});`;
    return widthOf(one) <= 114 ? [one] : [head, code`  ${read(k)},`, `  ${rest},`, ");"];
  });
}

/**
 * The a2a.json code of a named transform; the Part's is the dialect's part rule (partCode), which the IR gives
 * as the message's form, never as a step.
 */
export function transformCode(name: Exclude<CompatTransformName, "part">): TransformCode {
  return transformCodes[name];
}
