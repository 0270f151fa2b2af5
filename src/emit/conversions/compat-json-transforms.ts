/**
 * The named transforms of the compat plan (compat-proto-transforms.ts writes them for the proto path),
 * written as code for the direct conversions (compat-json-module.ts), in the
 * names compat-json-env.ts gives those functions: toward the newer version
 * they read the older dialect JSON object `from` (each key's value into
 * `value`) and fill the newer message `out`; toward the older version they
 * read the newer message `from` and fill the dialect object `out`; both
 * report at `path` into `lost`. Each gives the result, and reports the losses (reasons from the
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
import { chained, guarded, ifBlock, indented, widthOf } from "../print/code-layout.js";

export interface DecodeCtx {
  readonly d03: DescMessage;
  readonly d10: DescMessage;
  /** Whether types are written (TypeScript). */
  readonly typed: boolean;
  /** ": JsonObject" in TypeScript, "" in JavaScript. */
  readonly json: Code;
  /**
   * Expression: the dialect value of an older field of `obj` (of type `desc`, default from / d03);
   * null or undefined when absent.
   */
  read(name03: string, obj?: string, desc?: DescMessage): string;
  /**
   * Expression: the dialect value `expr` (mostly `value`) of that field read as the older proto reads it
   * (throws as fromJson would); `where` is the path of its object (default path).
   */
  value(name03: string, expr: string, desc?: DescMessage, where?: Code): Code;
  /** Statement: sets a newer field of `out`. */
  set(name10: string, expr: Code): Code;
  /**
   * Expression: the dialect JSON `expr` of an older message field, converted to its newer pair;
   * `parentAt` is the path of its parent (default path).
   */
  toNewer(name03: string, expr: string, desc?: DescMessage, parentAt?: Code): Code;
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
  /** Expression: the function (json, path, lost) → newer message of an older message field, for list elements. */
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
  /** Expression: a newer field of `from`. */
  get(name10: string): string;
  /**
   * Statement: writes the older field (type `desc`, default d03) into `target` (default out) when
   * toJson would, enums spelled by the dialect.
   */
  put(name03: string, expr: string, target?: string, desc?: DescMessage): Code;
  /**
   * Expression: `expr`, a message of the newer field `name10` of `desc` (default d10), converted
   * to older dialect JSON; `at` its path (default the field's key under path).
   */
  toOlder(name10: string, expr: string, desc?: DescMessage, at?: Code): Code;
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
  /**
   * Set for a transform whose code toward the newer version is a job of its own (the card's interfaces, gathered
   * from four keys): the middle of the name of its own function (`agentCard` + `Interfaces` + `FromOlderJson`),
   * which reads `from` and fills `out`. The pair's function calls it where the transform applies.
   */
  readonly ownFunction?: string;
}

export type TransformName = Exclude<CompatTransformName, "part">;

const transformCodes: Readonly<Record<TransformName, TransformCode>> = {
  taskState: {
    toNewer: (c) => [code`if ((value = ${c.read("state")}) != null) ${c.set("state", c.value("state", "value"))}`],
    toOlder: (c) => [c.put("state", c.get("state"))],
  },

  finalFromState: {
    // `final` is recomputed on the newer side: read only to check it as fromJson would.
    toNewer: (c) => [code`if ((value = ${c.read("final")}) != null) ${c.value("final", "value")};`],
    toOlder: (c) => {
      const final = ["COMPLETED", "CANCELED", "FAILED", "REJECTED", "INPUT_REQUIRED"].map(
        (n) => `status.state === ${c.enumNumber("status.state", n)} /* ${n} */`,
      );
      const set = code`${prop("out", c.key("final"))} = true;`;
      // Inside the function's block and the `if`'s: 4 columns; `if (` and `) ` around the tests.
      const tests = chained(final, "||", 120 - 4 - 6 - widthOf(set));
      return [
        code`const status = ${c.get("status")};`,
        `if (status !== undefined) {`,
        code`  ${prop("out", c.key("status"))} = ${c.toOlder("status", "status")};`,
        ...(tests.length === 1
          ? [code`  if (${tests[0]!}) ${set}`]
          : ["  if (", ...indented("    ", tests), code`  ) ${set}`]),
        `}`,
      ];
    },
  },

  blocking: {
    toNewer: (c) => [
      c.set("return_immediately", code`!((value = ${c.read("blocking")}) != null && ${c.value("blocking", "value")})`),
    ],
    toOlder: (c) => [code`if (!${c.get("return_immediately")}) ${prop("out", c.key("blocking"))} = true;`],
  },

  configurationBlocks: {
    toOlder: (c) => {
      const blocking = c.key("blocking", c.older("SendMessageConfiguration"));
      const conf = c.toOlder("configuration", "configuration");
      return [
        code`const configuration = ${c.get("configuration")};`,
        code`${prop("out", c.key("configuration"))} = configuration ? ${conf} : { ${blocking}: true };`,
      ];
    },
    // Toward the newer version the configuration converts by its pair.
    toNewer: (c) =>
      guarded(
        code`(value = ${c.read("configuration")}) != null`,
        c.set("configuration", c.toNewer("configuration", "value")),
      ),
  },

  historyLength: {
    toNewer: (c) => [
      code`if ((value = ${c.read("history_length")}) != null) {`,
      code`  const historyLength = ${c.value("history_length", "value")};`,
      code`  if (historyLength !== 0) ${c.set("history_length", "historyLength")}`,
      `}`,
    ],
    toOlder: (c) => [
      code`const historyLength = ${c.get("history_length")};`,
      ...guarded("historyLength === 0", c.lose("history_length", lit(LOSS.noHistory))),
      code`else if (historyLength !== undefined) ${prop("out", c.key("history_length"))} = historyLength;`,
    ],
  },

  schemes: {
    toNewer: (c) => [
      code`if ((value = ${c.read("schemes")}) != null) {`,
      code`  const schemes = ${c.value("schemes", "value")};`,
      code`  if (schemes[0] !== undefined) ${c.set("scheme", "schemes[0]")}`,
      [
        `  if (schemes.length > 1) `,
        c.lose(c.key03("schemes"), `${lit(LOSS_BEFORE.droppedSchemes)} + schemes.slice(1).join(", ")`),
      ],
      `}`,
    ],
    toOlder: (c) => [code`if (${c.get("scheme")}) ${prop("out", c.key("schemes"))} = [${c.get("scheme")}];`],
  },

  /** The older PushNotificationConfig inside SendMessageConfiguration ↔ the newer flat TaskPushNotificationConfig. */
  inlinePushConfig: {
    toNewer: (c) => {
      const cfg = c.older("PushNotificationConfig");
      return [
        code`if ((value = ${c.read("push_notification")}) != null) {`,
        code`  const pushJson = ${c.rt("object")}(value, path, ${lit(cfg.typeName)});`,
        code`  const pushPath = ${c.rt("at")}(path, ${lit(c.key03("push_notification"))});`,
        ...indented("  ", c.unknownKeys(cfg, "pushJson", "pushPath")),
        ...indented("  ", c.declareZero("pushConfig", "TaskPushNotificationConfig")),
        ...["url", "token", "id"].flatMap((n) => indented("  ", pushString(c, n, "pushConfig"))),
        [
          code`  if ((value = ${c.read("authentication", "pushJson", cfg)}) != null) `,
          code`pushConfig.authentication = ${c.toNewer("authentication", "value", cfg, "pushPath")};`,
        ],
        code`  ${c.set("task_push_notification_config", "pushConfig")}`,
        `}`,
      ];
    },
    toOlder: (c) => {
      const cfg = c.older("PushNotificationConfig");
      const tpc = c.d10.fields.find((f) => f.name === "task_push_notification_config")!.message!;
      const tenant = c.planReason("TaskPushNotificationConfig", "tenant");
      const auth = c.toOlder("authentication", "pushConfig.authentication", tpc);
      return [
        code`const pushConfig = ${c.get("task_push_notification_config")};`,
        `if (pushConfig !== undefined) {`,
        code`  if (pushConfig.tenant) ${c.lose("task_push_notification_config.tenant", lit(tenant))}`,
        code`  const pushJson${c.json} = {};`,
        ...["id", "url", "token"].map((n) => code`  ${c.put(n, `pushConfig.${n}`, "pushJson", cfg)}`),
        [
          `  if (pushConfig.authentication !== undefined) `,
          code`${prop("pushJson", c.key("authentication", cfg))} = ${auth};`,
        ],
        code`  ${prop("out", c.key("push_notification"))} = pushJson;`,
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
      const key = c.key03("push_notification_config");
      return [
        ...readIds(c, "name", ["task_id", "id"]),
        code`if ((value = ${c.read("push_notification_config")}) != null) {`,
        code`  const pushPath = ${c.rt("at")}(path, ${lit(key)});`,
        code`  const pushJson = ${c.rt("object")}(value, pushPath, ${lit(cfg.typeName)});`,
        ...indented("  ", c.unknownKeys(cfg, "pushJson", "pushPath")),
        ...["url", "token"].flatMap((n) => indented("  ", pushString(c, n, "out"))),
        // The id the name carries wins over the config's own.
        code`  if ((value = ${c.read("id", "pushJson", cfg)}) != null) {`,
        code`    const read = ${c.value("id", "value", cfg, "pushPath")};`,
        `    if (read !== "" && out.id === "") out.id = read;`,
        `  }`,
        [
          code`  if ((value = ${c.read("authentication", "pushJson", cfg)}) != null) `,
          code`out.authentication = ${c.toNewer("authentication", "value", cfg, "pushPath")};`,
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
        code`${prop("out", taskKey)} = from.taskId;`,
        `{`,
        code`  const pushJson${c.json} = { id: from.id };`,
        ...["url", "token"].map((n) => code`  ${c.put(n, `from.${n}`, "pushJson", cfg)}`),
        [
          code`  if (from.authentication !== undefined) ${prop("pushJson", c.key("authentication", cfg))} = `,
          code`${c.toOlder("authentication", "from.authentication")};`,
        ],
        code`  ${prop("out", c.key("push_notification_config"))} = pushJson;`,
        `}`,
      ];
    },
  },

  /**
   * The newer supported_interfaces (each with its protocol_version) ↔ the older url, preferred_transport,
   * additional_interfaces and protocol_version; capabilities.extended_agent_card ↔
   * supports_authenticated_extended_card. Runs after the field steps (it completes the capabilities), in a function
   * of its own, which scopes its names.
   */
  cardInterfaces: {
    ownFunction: "Interfaces",
    toNewer: (c) => {
      const additionalPath = code`${c.rt("at")}(path, ${lit(c.key03("additional_interfaces"))})`;
      return [
        [
          code`const version = /^(\\d+\\.\\d+)/.exec((value = ${c.read("protocol_version")}) != null ? `,
          code`${c.value("protocol_version", "value")} : "")?.[1] ?? "0.3";`,
        ],
        code`const cardUrl = (value = ${c.read("url")}) != null ? ${c.value("url", "value")} : "";`,
        [
          code`const preferred = (value = ${c.read("preferred_transport")}) != null ? `,
          code`${c.value("preferred_transport", "value")} : "";`,
        ],
        code`const offered${c.typed ? ": [string, string][]" : ""} = [[cardUrl, preferred || "JSONRPC"]];`,
        code`if ((value = ${c.read("additional_interfaces")}) != null) {`,
        [
          code`  const additional = ${c.rt("each")}(value, ${additionalPath}, `,
          code`${lit(`${c.d03.typeName}.additional_interfaces`)}, lost, ${c.fnToNewer("additional_interfaces")});`,
        ],
        `  for (const listed of additional) offered.push([listed.url, listed.protocolBinding]);`,
        `}`,
        `for (const [url, binding] of offered) {`,
        [
          `  const known = out.supportedInterfaces.some(`,
          `(existing) => existing.url === url && existing.protocolBinding === binding);`,
        ],
        `  if (url === "" || known) continue;`,
        ...indented("  ", c.declareZero("iface", "AgentInterface")),
        `  iface.url = url;`,
        `  iface.protocolBinding = binding || "JSONRPC";`,
        `  iface.protocolVersion = version;`,
        `  out.supportedInterfaces.push(iface);`,
        `}`,
        code`if ((value = ${c.read("supports_authenticated_extended_card")}) != null) {`,
        code`  const extended = ${c.value("supports_authenticated_extended_card", "value")};`,
        `  if (extended) {`,
        code`    out.capabilities ??= ${c.zero("AgentCapabilities")};`,
        `    out.capabilities.extendedAgentCard = true;`,
        `  }`,
        `}`,
      ];
    },
    toOlder: (c) => [
      `{`,
      `  const all = from.supportedInterfaces;`,
      `  const legacy = all.filter((iface) => /^0\\./.test(iface.protocolVersion));`,
      `  const kept = legacy.length > 0 ? legacy : all;`,
      ...indented(
        "  ",
        guarded("legacy.length === 0 && all.length > 0", c.lose("supported_interfaces", lit(LOSS.noOlderInterface))),
      ),
      `  const first = kept[0];`,
      `  if (first !== undefined) {`,
      code`    ${prop("out", c.key("url"))} = first.url;`,
      code`    if (first.protocolBinding !== "") ${prop("out", c.key("preferred_transport"))} = first.protocolBinding;`,
      code`    ${prop("out", c.key("protocol_version"))} = first.protocolVersion || "0.3";`,
      `  }`,
      [
        code`  if (kept.length > 0) ${prop("out", c.key("additional_interfaces"))} = kept.map((iface) => `,
        c.toOlder("supported_interfaces", "iface", undefined, interfaceAt(c)),
        ");",
      ],
      `}`,
      [
        `if (from.capabilities?.extendedAgentCard) `,
        code`${prop("out", c.key("supports_authenticated_extended_card"))} = true;`,
      ],
    ],
  },
};

/** Expression: the path of `iface`, an item of the newer card's supported_interfaces (`all`), by its index. */
function interfaceAt(c: EncodeCtx): Code {
  return code`${c.rt("at")}(${c.rt("at")}(path, ${lit("supported_interfaces")}), all.indexOf(iface))`;
}

/**
 * Statement (lines): the string field `name` of the older PushNotificationConfig in `pushJson` (at `pushPath`),
 * read into `read` and set on `target` when not empty.
 */
function pushString(c: DecodeCtx, name: string, target: string): Code[] {
  const cfg = c.older("PushNotificationConfig");
  return ifBlock(code`(value = ${c.read(name, "pushJson", cfg)}) != null`, [
    code`const read = ${c.value(name, "value", cfg, "pushPath")};`,
    `if (read !== "") ${target}.${name} = read;`,
  ]);
}

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
    const str = (key: string, what: string) => code`${rt("str")}(file[${lit(key)}], filePath, ${lit(what)})`;
    const bytes = lit("a2a.v1.FilePart.file_with_bytes");
    const data = lit("a2a.v1.DataPart.data");
    return [
      code`const from = ${rt("object")}(json, path, ${lit(c.d03.typeName)});`,
      ...c.declareZero("out", c.d10.name),
      ...c.keyCheck(c.d03.typeName, "from", "path", PART_KEYS),
      metadata
        ? [
            `if (from["metadata"] != null) `,
            code`out.metadata = ${rt("struct")}(from["metadata"], path, "a2a.json Part metadata");`,
          ]
        : code`if (from["metadata"] !== undefined) ${c.lose("metadata", lit(c.planReason(c.d10.name, "metadata")))}`,
      `const fileJson = from["file"];`,
      [
        code`const kind = ${rt("partKindOf")}(from) ?? `,
        code`${rt("refuseKind")}(${rt("pathOf")}(path), ${lit(c.d03.typeName)}, from["kind"], "text, file or data");`,
      ],
      code`${rt("loseOtherContent")}(from, kind, path, lost);`,
      ...(filename
        ? guarded(
            code`kind !== "file" && ${rt("isObject")}(fileJson) && fileJson["name"] !== undefined`,
            code`${rt("lose")}(lost, path, "file.name", ${lit(LOSS.fileNameOffFilePart)});`,
          )
        : guarded(
            code`${rt("isObject")}(fileJson) && fileJson["name"] !== undefined`,
            code`${rt("lose")}(lost, path, "file.name", ${lit(c.planReason(c.d10.name, "filename"))});`,
          )),
      [
        `if (kind === "text") `,
        code`out.content = { case: "text", value: ${rt("str")}(from["text"], path, "a2a.v1.Part.text") };`,
      ],
      `else if (kind === "file") {`,
      code`  const filePath = ${rt("at")}(path, "file");`,
      code`  const file = ${rt("object")}(fileJson, filePath, "a2a.v1.FilePart");`,
      ...indented("  ", c.keyCheck("a2a.v1.FilePart", "file", "filePath", FILE_KEYS)),
      [
        `  if (file["uri"] != null && file["bytes"] != null) `,
        code`${rt("invalid")}(filePath, "oneof a2a.v1.FilePart.file (set by both uri and bytes)", file);`,
      ],
      [
        `  if (file["uri"] != null) `,
        code`out.content = { case: "url", value: ${str("uri", "a2a.v1.FilePart.file_with_uri")} };`,
      ],
      [
        `  else if (file["bytes"] != null) `,
        code`out.content = { case: "raw", value: ${rt("bytes")}(file["bytes"], filePath, ${bytes}) };`,
      ],
      code`  else ${rt("refuse")}(filePath, "a2a.v1.FilePart", file, "a file needs uri or bytes");`,
      code`  if (file["mimeType"] != null) out.mediaType = ${str("mimeType", "a2a.v1.FilePart.mime_type")};`,
      ...(filename ? [code`  if (file["name"] != null) out.filename = ${str("name", "a2a.json FileBase name")};`] : []),
      [
        `} else out.content = { case: "data", value: `,
        code`${rt("valueOf")}(${rt("object")}(from["data"], path, ${data}), path, ${data}) };`,
      ],
      `return out;`,
    ];
  },
  toOlder: (c: EncodeCtx): Code[] => {
    const rt = c.rt;
    const { metadata, filename } = partDialectFields(c);
    const noName = (reason: string) =>
      filename ? [code`    if (from.filename !== "") ${c.lose("filename", lit(reason))}`] : [];
    return [
      ...(metadata
        ? []
        : [code`if (from.metadata !== undefined) ${c.lose("metadata", lit(c.planReason(c.d10.name, "metadata")))}`]),
      ...(filename
        ? []
        : [code`if (from.filename !== "") ${c.lose("filename", lit(c.planReason(c.d10.name, "filename")))}`]),
      `const content = from.content;`,
      code`let out${c.json};`,
      `switch (content.case) {`,
      `  case "text":`,
      code`    if (from.mediaType) ${c.lose("media_type", lit(LOSS.textPartMediaType))}`,
      ...noName(LOSS.textPartFileName),
      `    out = { kind: "text", text: content.value };`,
      `    break;`,
      `  case "url":`,
      `  case "raw": {`,
      [
        code`    const file${c.json} = content.case === "url" ? `,
        code`{ uri: content.value } : { bytes: ${rt("base64")}(content.value) };`,
      ],
      `    if (from.mediaType) file["mimeType"] = from.mediaType;`,
      ...(filename ? [`    if (from.filename !== "") file["name"] = from.filename;`] : []),
      `    out = { kind: "file", file };`,
      `    break;`,
      `  }`,
      `  case "data": {`,
      code`    const json = ${rt("valueJson")}(content.value);`,
      code`    const data = ${rt("isObject")}(json) ? json : { value: json };`,
      [`    if (data !== json) `, code`${c.lose("data", lit(LOSS.dataWrapped))}`],
      code`    if (from.mediaType) ${c.lose("media_type", lit(LOSS.dataPartMediaType))}`,
      ...noName(LOSS.dataPartFileName),
      `    out = { kind: "data", data };`,
      `    break;`,
      `  }`,
      `  default:`,
      code`    ${rt("lose")}(lost, path, "", ${rt("PART_LEFT_OUT")});`,
      `    return undefined;`,
      `}`,
      ...(metadata
        ? [code`if (from.metadata !== undefined) out["metadata"] = ${rt("structJson")}(from.metadata);`]
        : []),
      `return out;`,
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
      return ids10.map((id, i) => `${prop("out", keys[i]!)} = from.${camel(id)};`);
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
      ? prop("from", root)
      : code`${c.rt("isObject")}(${prop("from", root)}) ? ${prop(prop("from", root), sub)} : undefined`;
  };
  return keys.flatMap((k, i) => {
    const head = code`out.${camel(ids10[i]!)} = ${c.rt("resourceId")}(`;
    const rest = ["path", lit(k), lit(`${c.d03.typeName} ${k}`)];
    const one = code`${head}${read(k)}, ${rest.join(", ")});`;
    // An argument a line when the call is too long for one, as a formatter prints it.
    return widthOf(one) <= 114 ? [one] : [head, code`  ${read(k)},`, ...rest.map((x) => `  ${x},`), ");"];
  });
}

/**
 * The a2a.json code of a named transform; the Part's is the dialect's part rule (partCode), which the IR gives
 * as the message's form, never as a step.
 */
export function transformCode(name: TransformName): TransformCode {
  return transformCodes[name];
}
