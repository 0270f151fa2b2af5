/**
 * The named conversions of the compat plan (src/compat/transform-names.ts
 * lists them; the override entries say where each applies and why). Each
 * works on the whole source message and fills the target, in either
 * direction, and reports what it cannot carry. Field names are the protos'
 * (the newer version first, then the older).
 */
import {
  create,
  fromJson,
  toJson,
  type DescEnum,
  type DescMessage,
  type JsonValue,
  type Message,
} from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { setField } from "../message-fields.js";

type Msg = Message & Record<string, unknown>;

export interface TransformContext {
  readonly src: Msg;
  readonly srcDesc: DescMessage;
  readonly out: Msg;
  readonly outDesc: DescMessage;
  /** True when converting the older version to the newer. */
  readonly toNewer: boolean;
  readonly path: string;
  lose(field: string, reason: string): void;
  /** Throws CompatJsonError: `field` (of the source; "" for the message itself) cannot be converted. */
  refuse(field: string, what: string, reason: string): never;
  /** An enum value of `field` by name: refused toward the newer version, reported toward the older. */
  enumValue(field: string, n: number, from: DescEnum, to: DescEnum): number;
  convert(m: Message, at: string): Message;
  readonly newer: string;
  readonly older: string;
}

type Transform = (ctx: TransformContext) => void;

const field = (d: DescMessage, name: string) => d.fields.find((f) => f.name === name)!;
const put = (ctx: TransformContext, name: string, value: unknown) => setField(ctx.out, field(ctx.outDesc, name), value);
/** A new message of the target version's `typeShort` type. */
const sub = (ctx: TransformContext, typeShort: string, init: Record<string, unknown>): Msg => {
  const name = `${ctx.toNewer ? ctx.newer : ctx.older}.${typeShort}`;
  const d = ctx.outDesc.file.messages.find((m) => m.typeName === name);
  if (!d) throw new Error(`compat: no message ${name}`);
  return create(d, init as never) as Msg;
};

/** `tasks/{a}/pushNotificationConfigs/{b}` → ["a", "b"] when the value fits the pattern. */
function parse(pattern: string, value: string): string[] | undefined {
  const ps = pattern.split("/");
  const vs = value.split("/");
  if (ps.length !== vs.length) return undefined;
  const out: string[] = [];
  for (let i = 0; i < ps.length; i++) {
    if (ps[i] === "*") out.push(vs[i]!);
    else if (ps[i] !== vs[i]) return undefined;
  }
  return out;
}

const TASK = "tasks/*";
const CONFIG = "tasks/*/pushNotificationConfigs/*";

const transforms: Record<string, Transform> = {
  /**
   * newer Part {text | raw | url | data (Value); media_type; filename; metadata} ↔
   * older Part {text | file {uri | bytes, mime_type} | data {data: Struct}}
   */
  part(ctx) {
    if (!ctx.toNewer) {
      const c = (ctx.src["content"] as { case?: string; value?: unknown }) ?? {};
      const mediaType = ctx.src["mediaType"] as string;
      if (c.case === "text") {
        put(ctx, "text", c.value);
        if (mediaType) ctx.lose("media_type", "a v0.3 text part has no media type");
      } else if (c.case === "raw" || c.case === "url") {
        put(
          ctx,
          "file",
          sub(ctx, "FilePart", {
            file: { case: c.case === "raw" ? "fileWithBytes" : "fileWithUri", value: c.value },
            mimeType: mediaType,
          }),
        );
      } else if (c.case === "data") {
        // The newer data is a google.protobuf.Value message; the older one a Struct, held as a JSON object.
        const v = toJson(ValueSchema, c.value as never);
        if (v !== null && typeof v === "object" && !Array.isArray(v))
          put(ctx, "data", sub(ctx, "DataPart", { data: v }));
        else {
          // v0.3 data is an object: keep the value under "value" (as @a2a-js/sdk does) and say so.
          put(ctx, "data", sub(ctx, "DataPart", { data: { value: v } }));
          ctx.lose("data", "a v0.3 data part holds an object; this value was wrapped as {value: …}");
        }
        if (mediaType) ctx.lose("media_type", "a v0.3 data part has no media type");
      }
      return;
    }
    // Toward the newer version a part must hold something: an empty one, or a file without content, is refused.
    const p = (ctx.src["part"] as { case?: string; value?: Msg }) ?? {};
    if (p.case === "text") put(ctx, "text", p.value);
    else if (p.case === "file") {
      const f = p.value!;
      const file = f["file"] as { case?: string; value?: unknown };
      if (file.case === "fileWithBytes") put(ctx, "raw", file.value);
      else if (file.case === "fileWithUri") put(ctx, "url", file.value);
      else ctx.refuse("file", `${ctx.older}.FilePart`, "a file needs uri or bytes");
      if (f["mimeType"]) put(ctx, "media_type", f["mimeType"]);
    } else if (p.case === "data")
      put(ctx, "data", fromJson(ValueSchema, (p.value!["data"] as JsonValue | undefined) ?? {}));
    else ctx.refuse("", ctx.srcDesc.typeName, "a part needs text, a file or data");
  },

  /** Task states by name (older TASK_STATE_CANCELLED ↔ newer CANCELED share the number 5). */
  taskState(ctx) {
    const from = field(ctx.srcDesc, "state");
    const to = field(ctx.outDesc, "state");
    if (from.fieldKind === "enum" && to.fieldKind === "enum")
      put(ctx, "state", ctx.enumValue("state", ctx.src["state"] as number, from.enum, to.enum));
  },

  /**
   * Toward the older version: the status as its pair, and `final` at terminal states and
   * input-required (SA03:19). Toward the newer one `final` is dropped: it is recomputed.
   */
  finalFromState(ctx) {
    if (ctx.toNewer) return;
    const status = ctx.src["status"] as Message | undefined;
    if (!status) return;
    const converted = ctx.convert(status, "status") as Msg;
    put(ctx, "status", converted);
    const stateField = field(ctx.srcDesc.fields.find((f) => f.name === "status")!.message!, "state");
    const name =
      stateField.fieldKind === "enum"
        ? stateField.enum.values.find((v) => v.number === (status as Msg)["state"])?.localName
        : undefined;
    put(ctx, "final", ["COMPLETED", "CANCELED", "FAILED", "REJECTED", "INPUT_REQUIRED"].includes(name ?? ""));
  },

  /** newer return_immediately = !older blocking. */
  blocking(ctx) {
    if (ctx.toNewer) put(ctx, "return_immediately", !ctx.src["blocking"]);
    else put(ctx, "blocking", !ctx.src["returnImmediately"]);
  },

  /** older history_length 0 = no limit ↔ newer unset; newer 0 (no history) has no older spelling. */
  historyLength(ctx) {
    const v = ctx.src["historyLength"] as number | undefined;
    if (ctx.toNewer) {
      if (v) put(ctx, "history_length", v);
    } else if (v === 0)
      ctx.lose("history_length", "v0.3 cannot ask for no history (0 means no limit there); sent without a limit");
    else if (v !== undefined) put(ctx, "history_length", v);
  },

  /** newer id ↔ older name tasks/{id} */
  taskName(ctx) {
    if (!ctx.toNewer) return put(ctx, "name", `tasks/${ctx.src["id"] as string}`);
    const ids = parse(TASK, ctx.src["name"] as string);
    if (ids) put(ctx, "id", ids[0]);
    else ctx.lose("name", `not a task name (tasks/{id}): ${String(ctx.src["name"])}`);
  },

  /** newer task_id, id ↔ older name tasks/{task_id}/pushNotificationConfigs/{id} */
  configName(ctx) {
    if (!ctx.toNewer)
      return put(
        ctx,
        "name",
        `tasks/${ctx.src["taskId"] as string}/pushNotificationConfigs/${ctx.src["id"] as string}`,
      );
    const ids = parse(CONFIG, ctx.src["name"] as string);
    if (!ids) return ctx.lose("name", `not a push config name: ${String(ctx.src["name"])}`);
    put(ctx, "task_id", ids[0]);
    put(ctx, "id", ids[1]);
  },

  /** newer task_id ↔ older parent tasks/{task_id} */
  parentName(ctx) {
    if (!ctx.toNewer) return put(ctx, "parent", `tasks/${ctx.src["taskId"] as string}`);
    const ids = parse(TASK, ctx.src["parent"] as string);
    if (ids) put(ctx, "task_id", ids[0]);
    else ctx.lose("parent", `not a task name: ${String(ctx.src["parent"])}`);
  },

  /** newer flat TaskPushNotificationConfig ↔ older {name, push_notification_config} */
  pushConfig(ctx) {
    if (!ctx.toNewer) {
      put(ctx, "name", `tasks/${ctx.src["taskId"] as string}/pushNotificationConfigs/${ctx.src["id"] as string}`);
      put(ctx, "push_notification_config", inner(ctx, ctx.src));
      return;
    }
    const ids = parse(CONFIG, ctx.src["name"] as string);
    const cfg = ctx.src["pushNotificationConfig"] as Msg | undefined;
    if (ids) {
      put(ctx, "task_id", ids[0]);
      put(ctx, "id", ids[1]);
    }
    if (cfg) flat(ctx, cfg);
  },

  /** newer TaskPushNotificationConfig ↔ older PushNotificationConfig, inside SendMessageConfiguration */
  inlinePushConfig(ctx) {
    if (!ctx.toNewer) {
      const tpc = ctx.src["taskPushNotificationConfig"] as Msg | undefined;
      if (!tpc) return;
      if (tpc["tenant"]) ctx.lose("task_push_notification_config.tenant", "v0.3 has no tenant");
      put(ctx, "push_notification", inner(ctx, tpc));
      return;
    }
    const cfg = ctx.src["pushNotification"] as Msg | undefined;
    if (!cfg) return;
    const out = sub(ctx, "TaskPushNotificationConfig", {});
    const sink = { ...ctx, out, outDesc: field(ctx.outDesc, "task_push_notification_config").message! };
    flat(sink, cfg);
    put(ctx, "task_push_notification_config", out);
  },

  /** newer scheme ↔ older schemes[] (the first is kept; more are reported) */
  schemes(ctx) {
    if (!ctx.toNewer) {
      if (ctx.src["scheme"]) put(ctx, "schemes", [ctx.src["scheme"]]);
      return;
    }
    const list = (ctx.src["schemes"] as string[]) ?? [];
    if (list[0] !== undefined) put(ctx, "scheme", list[0]);
    if (list.length > 1) ctx.lose("schemes", `v1.0 takes one scheme; dropped ${list.slice(1).join(", ")}`);
  },

  /**
   * newer supported_interfaces (each with protocol_version) ↔ older url, preferred_transport,
   * additional_interfaces, protocol_version; and capabilities.extended_agent_card ↔
   * supports_authenticated_extended_card.
   */
  cardInterfaces(ctx) {
    if (!ctx.toNewer) {
      const all = (ctx.src["supportedInterfaces"] as Msg[]) ?? [];
      const legacy = all.filter((i) => /^0\./.test(String(i["protocolVersion"] ?? "")));
      const kept = legacy.length > 0 ? legacy : all;
      if (legacy.length === 0 && all.length > 0)
        ctx.lose(
          "supported_interfaces",
          "no 0.x interface; the v0.3 card lists interfaces a v0.3 client may not speak",
        );
      const first = kept[0];
      if (first) {
        put(ctx, "url", first["url"]);
        put(ctx, "preferred_transport", first["protocolBinding"]);
        put(ctx, "protocol_version", first["protocolVersion"] || "0.3");
      }
      put(
        ctx,
        "additional_interfaces",
        kept.map((i) => sub(ctx, "AgentInterface", { url: i["url"], transport: i["protocolBinding"] })),
      );
      const caps = ctx.src["capabilities"] as Msg | undefined;
      if (caps?.["extendedAgentCard"]) put(ctx, "supports_authenticated_extended_card", true);
      return;
    }
    const version = (/^(\d+\.\d+)/.exec(String(ctx.src["protocolVersion"] ?? "")) ?? [])[1] ?? "0.3";
    const list: Msg[] = [];
    const add = (url: unknown, binding: unknown) => {
      if (
        typeof url !== "string" ||
        url === "" ||
        list.some((i) => i["url"] === url && i["protocolBinding"] === binding)
      )
        return;
      list.push(sub(ctx, "AgentInterface", { url, protocolBinding: binding || "JSONRPC", protocolVersion: version }));
    };
    add(ctx.src["url"], ctx.src["preferredTransport"] || "JSONRPC");
    for (const i of (ctx.src["additionalInterfaces"] as Msg[]) ?? []) add(i["url"], i["transport"]);
    put(ctx, "supported_interfaces", list);
    if (ctx.src["supportsAuthenticatedExtendedCard"]) {
      const caps = (ctx.out["capabilities"] as Msg | undefined) ?? sub(ctx, "AgentCapabilities", {});
      caps["extendedAgentCard"] = true;
      ctx.out["capabilities"] = caps;
    }
  },
};

/** The older PushNotificationConfig from a newer flat config. */
function inner(ctx: TransformContext, tpc: Msg): Msg {
  const auth = tpc["authentication"] as Message | undefined;
  return sub(ctx, "PushNotificationConfig", {
    id: tpc["id"],
    url: tpc["url"],
    token: tpc["token"],
    ...(auth ? { authentication: ctx.convert(auth, "authentication") } : {}),
  });
}

/** Fills the newer flat config's fields from an older PushNotificationConfig. */
function flat(ctx: TransformContext, cfg: Msg): void {
  for (const k of ["url", "token"]) if (cfg[k]) ctx.out[k] = cfg[k];
  if (cfg["id"] && !ctx.out["id"]) ctx.out["id"] = cfg["id"];
  const auth = cfg["authentication"] as Message | undefined;
  if (auth) ctx.out["authentication"] = ctx.convert(auth, "push_notification_config.authentication");
}

export function compatTransform(name: string): Transform {
  const t = transforms[name];
  if (!t) throw new Error(`compat: unknown transform ${name}`);
  return t;
}
