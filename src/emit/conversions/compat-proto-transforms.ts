/**
 * The named transforms of the compat plan, each written once, as the code the
 * generator prints into a pair's conversion (compat-proto-pair.ts): one
 * writer per direction, which reads the source message `from` and gives values
 * for fields of the target message, with statements before the target is
 * built (locals, reported losses) and after it (with the target as `out`).
 * The names of this registry are the transforms of src/compat/transforms.ts,
 * whose definitions say what each writer reads, writes, converts and builds:
 * the conversion IR checks those against the pair before anything is
 * printed, and a writer that uses what its definition does not list fails
 * the generator (compat-proto-pair.ts). Field names are the protos'.
 */
import type { Printable } from "@bufbuild/protoplugin";
import { LOSS, LOSS_BEFORE } from "../../compat/loss-reasons.js";
import type { CompatTransformName } from "../../compat/transforms.js";

/** What a transform writer works with: the pair's source message `from`, its target, and the code around them. */
export interface TransformWriterContext {
  /** True when converting the older version to the newer. */
  readonly toNewer: boolean;
  /** `from.<field>` for a source field or oneof by proto name (one its definition lists). */
  get(name: string): string;
  /** The value of a target field or oneof, by proto name (a problem when there is none). */
  set(name: string, value: Printable): void;
  /** A statement before the target is built. */
  before(...line: Printable[]): void;
  /** `if (cond) stmt` before the target is built, the statement on a line of its own when both are too long. */
  beforeIf(cond: Printable, stmt: Printable[], indent?: string): void;
  /** A statement after the target is built, as `out`. */
  after(...line: Printable[]): void;
  /** Statement: reports the loss of `key` (a source field path) for `reason` (a string, or code when an array). */
  lose(key: string, reason: string | Printable[]): Printable[];
  /** The pair's source message, by its name in its package (`GetTaskRequest`). */
  readonly source: string;
  /** Expression (never): refuses the source at `key` ("" for the message itself), naming the source type `what`. */
  refuse(key: string, what: string, reason: string): Printable[];
  /**
   * Expression: `value`, a message of source type `typeShort` (in the source package), converted; `keys` its path
   * (a key, or `{ code }` for an index the code works out).
   */
  convert(typeShort: string, value: string, keys: readonly (string | { readonly code: string })[]): Printable[];
  /** Expression: the number `value` of source field `name`'s enum as target field `name`'s enum (by name). */
  enumValue(name: string, value: string): Printable[];
  /** Expression: a target-version message `typeShort` with `fields` (proto names), the others at their zero value. */
  literal(typeShort: string, fields: Readonly<Record<string, Printable>>): Printable[];
  /**
   * ": T" in TypeScript, nothing in JavaScript: T is the target-version message `typeShort` followed by `suffix`
   * (e.g. `["content"]`, `[]`), or a lower-case name as it is (`string`).
   */
  type(typeShort: string, suffix?: string): Printable[];
  /** A helper of the generated code's runtime (@protoc-gen-a2a/runtime/compat-json). */
  rt(name: string): Printable;
  /** The reason the plan gives for a lossy field of another newer message, for a loss a transform reports. */
  planReason(newerShort: string, field: string): string;
  /** The number of a value (by name, without the prefix) of the enum of source field `path` (dotted, from `from`). */
  enumNumber(path: string, valueName: string): number;
}

type TransformWriter = (c: TransformWriterContext) => void;

/** `tasks/{id}` and `tasks/{task_id}/pushNotificationConfigs/{id}`, each name segment one group. */
const TASK_NAME = String.raw`/^tasks\/([^/]*)$/`;
const CONFIG_NAME = String.raw`/^tasks\/([^/]*)\/pushNotificationConfigs\/([^/]*)$/`;

const transforms: Readonly<Record<CompatTransformName, { toOlder: TransformWriter; toNewer: TransformWriter }>> = {
  /**
   * newer Part {text | raw | url | data (Value); media_type; filename; metadata} ↔
   * older Part {text | file {uri | bytes, mime_type} | data {data: Struct}}
   */
  part: {
    toOlder(c) {
      const mediaType = c.get("media_type");
      c.before("const content = ", c.get("content"), ";");
      c.before("let part", ...c.type("Part", '["part"]'), ";");
      c.before("switch (content.case) {");
      c.before('  case "text":');
      c.beforeIf(mediaType, c.lose("media_type", LOSS.textPartMediaType), "    ");
      c.before('    part = { case: "text", value: content.value };');
      c.before("    break;");
      c.before('  case "raw":');
      c.before('  case "url": {');
      c.before(
        "    const file",
        ...c.type("FilePart", '["file"]'),
        ' = content.case === "raw" ? ',
        '{ case: "fileWithBytes", value: content.value } : { case: "fileWithUri", value: content.value };',
      );
      c.before(
        '    part = { case: "file", value: ',
        ...c.literal("FilePart", { file: "file", mime_type: mediaType }),
        " };",
      );
      c.before("    break;");
      c.before("  }");
      c.before('  case "data": {');
      c.before(
        '    // The newer data is any JSON value; the older one an object: another value is kept under "value".',
      );
      c.before("    const json = ", c.rt("valueJson"), "(content.value);");
      c.before(
        '    const data = typeof json === "object" && json !== null && !Array.isArray(json) ? json : { value: json };',
      );
      c.beforeIf("data !== json", c.lose("data", LOSS.dataWrapped), "    ");
      c.beforeIf(mediaType, c.lose("media_type", LOSS.dataPartMediaType), "    ");
      c.before('    part = { case: "data", value: ', ...c.literal("DataPart", { data: "data" }), " };");
      c.before("    break;");
      c.before("  }");
      c.before("  default:");
      c.before("    part = { case: undefined };");
      c.before("}");
      c.set("part", "part");
    },
    toNewer(c) {
      // A part must hold something: an empty one, or a file without content, is refused.
      c.before("const part = ", c.get("part"), ";");
      c.before('const file = part.case === "file" ? part.value : undefined;');
      c.before("const content", ...c.type("Part", '["content"]'), " =");
      c.before('  part.case === "text" ? { case: "text", value: part.value }');
      c.before(
        '  : part.case === "data" ? { case: "data", value: ',
        c.rt("valueOf"),
        '(part.value.data ?? {}, path, "google.protobuf.Value") }',
      );
      c.before('  : file?.file.case === "fileWithBytes" ? { case: "raw", value: file.file.value }');
      c.before('  : file?.file.case === "fileWithUri" ? { case: "url", value: file.file.value }');
      c.before("  : file ? ", ...c.refuse("file", "FilePart", "a file needs uri or bytes"));
      c.before("  : ", ...c.refuse("", "Part", "a part needs text, a file or data"), ";");
      c.set("content", "content");
      c.set("media_type", 'file ? file.mimeType : ""');
    },
  },

  /** Task states by name (older TASK_STATE_CANCELLED ↔ newer CANCELED share the number 5). */
  taskState: {
    toOlder: (c) => c.set("state", c.enumValue("state", c.get("state"))),
    toNewer: (c) => c.set("state", c.enumValue("state", c.get("state"))),
  },

  /**
   * Toward the older version: the status as its pair, and `final` at terminal states and
   * input-required (SA03:19). Toward the newer one `final` is dropped: it is recomputed.
   */
  finalFromState: {
    toOlder(c) {
      const status = c.get("status");
      const names = ["COMPLETED", "CANCELED", "FAILED", "REJECTED", "INPUT_REQUIRED"];
      const numbers = names.map((n) => c.enumNumber("status.state", n)).sort((x, y) => x - y);
      c.set("status", [status, " && ", ...c.convert("TaskStatus", status, ["status"])]);
      c.set("final", `${status} !== undefined && [${numbers.join(", ")}].includes(${status}.state)`);
    },
    toNewer: () => {},
  },

  /** newer return_immediately = !older blocking. */
  blocking: {
    toOlder: (c) => c.set("blocking", `!${c.get("return_immediately")}`),
    toNewer: (c) => c.set("return_immediately", `!${c.get("blocking")}`),
  },

  /**
   * The newer request without a configuration blocks; the older one without it does not (its `blocking`
   * defaults to false), so toward the older version an absent configuration is written as `blocking: true`.
   * Toward the newer version the configuration converts by its pair.
   */
  configurationBlocks: {
    toOlder(c) {
      const conf = c.get("configuration");
      c.set("configuration", [
        `${conf} ? `,
        ...c.convert("SendMessageConfiguration", conf, ["configuration"]),
        " : ",
        ...c.literal("SendMessageConfiguration", { blocking: "true" }),
      ]);
    },
    toNewer(c) {
      const conf = c.get("configuration");
      c.set("configuration", [`${conf} && `, ...c.convert("SendMessageConfiguration", conf, ["configuration"])]);
    },
  },

  /** older history_length 0 = no limit ↔ newer unset; newer 0 (no history) has no older spelling. */
  historyLength: {
    toOlder(c) {
      const v = c.get("history_length");
      c.beforeIf(`${v} === 0`, c.lose("history_length", LOSS.noHistory));
      c.set("history_length", `${v} ?? 0`);
    },
    toNewer: (c) => c.set("history_length", `${c.get("history_length")} || undefined`),
  },

  /** newer id ↔ older name tasks/{id} */
  taskName: {
    toOlder(c) {
      loseSlashes(c, ["id"]);
      c.set("name", `\`tasks/\${${c.get("id")}}\``);
    },
    toNewer(c) {
      // A name of another form names no task: the request is refused, as one without its id would be.
      c.before(`const ids = ${TASK_NAME}.exec(${c.get("name")});`);
      c.beforeIf("!ids", [...c.refuse("name", `${c.source}.name`, "a task name is tasks/{id}"), ";"]);
      c.set("id", `ids[1] ?? ""`);
    },
  },

  /** newer task_id, id ↔ older name tasks/{task_id}/pushNotificationConfigs/{id} */
  configName: {
    toOlder(c) {
      loseSlashes(c, ["task_id", "id"]);
      c.set("name", `\`tasks/\${${c.get("task_id")}}/pushNotificationConfigs/\${${c.get("id")}}\``);
    },
    toNewer(c) {
      const form = "a push config name is tasks/{task_id}/pushNotificationConfigs/{id}";
      c.before(`const ids = ${CONFIG_NAME}.exec(${c.get("name")});`);
      c.beforeIf("!ids", [...c.refuse("name", `${c.source}.name`, form), ";"]);
      c.set("task_id", `ids[1] ?? ""`);
      c.set("id", `ids[2] ?? ""`);
    },
  },

  /** newer task_id ↔ older parent tasks/{task_id} */
  parentName: {
    toOlder(c) {
      loseSlashes(c, ["task_id"]);
      c.set("parent", `\`tasks/\${${c.get("task_id")}}\``);
    },
    toNewer(c) {
      c.before(`const ids = ${TASK_NAME}.exec(${c.get("parent")});`);
      c.beforeIf("!ids", [...c.refuse("parent", `${c.source}.parent`, "a task name is tasks/{id}"), ";"]);
      c.set("task_id", `ids[1] ?? ""`);
    },
  },

  /** newer flat TaskPushNotificationConfig ↔ older {name, push_notification_config} */
  pushConfig: {
    toOlder(c) {
      loseSlashes(c, ["task_id", "id"]);
      const id = c.get("id");
      const auth = c.get("authentication");
      c.set("name", `\`tasks/\${${c.get("task_id")}}/pushNotificationConfigs/\${${id}}\``);
      c.set(
        "push_notification_config",
        c.literal("PushNotificationConfig", {
          id,
          url: c.get("url"),
          token: c.get("token"),
          authentication: [auth, " && ", ...c.convert("AuthenticationInfo", auth, ["authentication"])],
        }),
      );
    },
    toNewer(c) {
      c.before(`const ids = ${CONFIG_NAME}.exec(${c.get("name")});`);
      c.before("const config = ", c.get("push_notification_config"), ";");
      c.set("task_id", `ids?.[1] ?? ""`);
      c.set("id", `ids?.[2] || config?.id || ""`);
      c.set("url", `config?.url ?? ""`);
      c.set("token", `config?.token ?? ""`);
      const keys = ["push_notification_config", "authentication"];
      const auth = c.convert("AuthenticationInfo", "config.authentication", keys);
      c.set("authentication", ["config?.authentication && ", ...auth]);
    },
  },

  /** newer TaskPushNotificationConfig ↔ older PushNotificationConfig, inside SendMessageConfiguration */
  inlinePushConfig: {
    toOlder(c) {
      c.before("const pushConfig = ", c.get("task_push_notification_config"), ";");
      const tenant = c.planReason("TaskPushNotificationConfig", "tenant");
      c.beforeIf("pushConfig?.tenant", c.lose("task_push_notification_config.tenant", tenant));
      const converted = c.convert("AuthenticationInfo", "pushConfig.authentication", ["authentication"]);
      const auth = ["pushConfig.authentication && ", ...converted];
      const fields = { id: "pushConfig.id", url: "pushConfig.url", token: "pushConfig.token", authentication: auth };
      c.set("push_notification", ["pushConfig && ", ...c.literal("PushNotificationConfig", fields)]);
    },
    toNewer(c) {
      c.before("const pushConfig = ", c.get("push_notification"), ";");
      const keys = ["push_notification", "authentication"];
      const auth = [
        "pushConfig.authentication && ",
        ...c.convert("AuthenticationInfo", "pushConfig.authentication", keys),
      ];
      const fields = { id: "pushConfig.id", url: "pushConfig.url", token: "pushConfig.token", authentication: auth };
      c.set("task_push_notification_config", ["pushConfig && ", ...c.literal("TaskPushNotificationConfig", fields)]);
    },
  },

  /** newer scheme ↔ older schemes[] (the first is kept; more are reported) */
  schemes: {
    toOlder: (c) => c.set("schemes", `${c.get("scheme")} ? [${c.get("scheme")}] : []`),
    toNewer(c) {
      const schemes = c.get("schemes");
      const dropped = completed(LOSS_BEFORE.droppedSchemes, `${schemes}.slice(1).join(", ")`);
      c.beforeIf(`${schemes}.length > 1`, c.lose("schemes", dropped));
      c.set("scheme", `${schemes}[0] ?? ""`);
    },
  },

  /**
   * newer supported_interfaces (each with protocol_version) ↔ older url, preferred_transport,
   * additional_interfaces, protocol_version; and capabilities.extended_agent_card ↔
   * supports_authenticated_extended_card.
   */
  cardInterfaces: { toOlder: cardInterfacesToOlder, toNewer: cardInterfacesToNewer },
};

/**
 * The 0.x interfaces (all when there are none, which is reported), each by its pair's function, which reports
 * what it drops. The others are left out unreported: a v0.3 client cannot speak them, and the v0.3 card of a
 * server of both versions is meant to list only its 0.x interfaces. The first kept gives the card's url.
 */
function cardInterfacesToOlder(c: TransformWriterContext): void {
  const all = c.get("supported_interfaces");
  c.before(`const legacy = ${all}.filter((supported) => /^0\\./.test(supported.protocolVersion));`);
  c.before(`const kept = legacy.length > 0 ? legacy : ${all};`);
  c.beforeIf("legacy.length === 0 && kept.length > 0", c.lose("supported_interfaces", LOSS.noOlderInterface));
  c.before("const first = kept[0];");
  c.set("url", `first?.url ?? ""`);
  c.set("preferred_transport", `first?.protocolBinding ?? ""`);
  c.set("protocol_version", `first ? first.protocolVersion || "0.3" : ""`);
  const at = { code: `${all}.indexOf(agentInterface)` };
  const each = c.convert("AgentInterface", "agentInterface", ["supported_interfaces", at]);
  c.set("additional_interfaces", ["kept.map((agentInterface) => ", ...each, ")"]);
  c.set("supports_authenticated_extended_card", `${c.get("capabilities")}?.extendedAgentCard === true`);
}

/** Each interface once, with the card's Major.Minor; the extended-card flag moves into the capabilities. */
function cardInterfacesToNewer(c: TransformWriterContext): void {
  c.before(`const version = /^(\\d+\\.\\d+)/.exec(${c.get("protocol_version")})?.[1] ?? "0.3";`);
  c.before("const interfaces", ...c.type("AgentInterface", "[]"), " = [];");
  c.before("const add = (url", ...c.type("string"), ", binding", ...c.type("string"), ") => {");
  const known = "interfaces.some((added) => added.url === url && added.protocolBinding === binding)";
  c.before(`  if (url === "" || ${known}) return;`);
  const each = c.literal("AgentInterface", {
    url: "url",
    protocol_binding: `binding || "JSONRPC"`,
    protocol_version: "version",
  });
  c.before("  interfaces.push(", ...each, ");");
  c.before("};");
  c.before(`add(${c.get("url")}, ${c.get("preferred_transport")} || "JSONRPC");`);
  c.before(`for (const additional of ${c.get("additional_interfaces")}) add(additional.url, additional.transport);`);
  c.set("supported_interfaces", "interfaces");
  const caps = c.literal("AgentCapabilities", {});
  c.after(
    `if (${c.get("supports_authenticated_extended_card")}) (out.capabilities ??= `,
    ...caps,
    ").extendedAgentCard = true;",
  );
}

/** The writer of a transform in a direction, if there is one by that name. */
export function transformWriter(name: CompatTransformName, toNewer: boolean): TransformWriter {
  const t = transforms[name];
  return toNewer ? t.toNewer : t.toOlder;
}

/** Code: a template literal of the reason's text `before`, then the value of `expr`. */
function completed(before: string, expr: string): Printable[] {
  const text = before.replace(/[`\\]|\$\{/g, (m) => `\\${m}`);
  return ["`" + text + "${", expr, "}`"];
}

/** Reports each newer id (by proto name) that holds "/", which the older resource name cannot hold apart. */
function loseSlashes(c: TransformWriterContext, ids: readonly string[]): void {
  for (const id of ids) c.beforeIf(`${c.get(id)}.includes("/")`, c.lose(id, LOSS.slashInName));
}
