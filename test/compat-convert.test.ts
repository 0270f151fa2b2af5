/**
 * The generated cross-version message conversions (generated-samples/a2a_compat_messages.ts:
 * one function per pair and direction, dispatched by a2aCompat): round trips
 * are the identity on what is not lossy, in both directions (fast-check), the
 * changed parameters and objects of FACTS.md B–C convert as the override
 * entries say, every loss is reported at its path with the plan's reason, and
 * what cannot be converted toward the newer version is refused.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { create, equals, fromJson, toJson, type Message } from "@bufbuild/protobuf";
import { CompatJsonError } from "@protoc-gen-a2a/runtime/protocol";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { a2aCompat, toOlderJson } from "../generated-samples/a2a_compat.js";
import * as v10 from "../generated-samples/v1.0.1/a2a_pb.js";
import * as v03 from "../generated-samples/v0.3.0/a2a_pb.js";

const older = <T extends Message>(m: Message) => a2aCompat.convert<T>(m, "toOlder");
const newer = <T extends Message>(m: Message) => a2aCompat.convert<T>(m, "toNewer");

const id = fc.stringMatching(/^[A-Za-z0-9-]{1,12}$/);
const text = fc.string({ maxLength: 20 });
const json = fc.dictionary(
  fc.stringMatching(/^[a-z]{1,6}$/),
  fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean()),
  { maxKeys: 3 },
);

const part10 = fc.oneof(
  text.map((t) => ({ content: { case: "text" as const, value: t } })),
  fc
    .tuple(fc.webUrl(), fc.constantFrom("image/png", "application/pdf"))
    .map(([u, m]) => ({ content: { case: "url" as const, value: u }, mediaType: m })),
  fc
    .tuple(fc.uint8Array({ minLength: 1, maxLength: 8 }), fc.constantFrom("application/octet-stream"))
    .map(([b, m]) => ({ content: { case: "raw" as const, value: b }, mediaType: m })),
  json.map((d) => ({ content: { case: "data" as const, value: fromJson(ValueSchema, d) } })),
);
const states10 = fc.constantFrom(...([1, 2, 3, 4, 5, 6, 7, 8] as v10.TaskState[]));
const message10 = fc.record({
  messageId: id,
  contextId: id,
  taskId: id,
  role: fc.constantFrom(v10.Role.USER, v10.Role.AGENT),
  parts: fc.array(part10, { maxLength: 3 }),
  metadata: fc.option(json, { nil: undefined }),
  extensions: fc.array(fc.webUrl(), { maxLength: 1 }),
});
const task10 = fc.record({
  id,
  contextId: id,
  status: fc.record({ state: states10, message: fc.option(message10, { nil: undefined }) }),
  artifacts: fc.array(
    fc.record({
      artifactId: id,
      name: text,
      description: text,
      parts: fc.array(part10, { maxLength: 2 }),
      extensions: fc.constant<string[]>([]),
    }),
    { maxLength: 2 },
  ),
  history: fc.array(message10, { maxLength: 2 }),
  metadata: fc.option(json, { nil: undefined }),
});

describe("round trips", () => {
  it("v1.0 → v0.3 → v1.0 is the identity on tasks without lossy fields", () => {
    fc.assert(
      fc.property(task10, (init) => {
        const task = create(v10.TaskSchema, init);
        const there = older<v03.Task>(task);
        expect(there.lost).toEqual([]);
        const back = newer<v10.Task>(there.message);
        expect(back.lost).toEqual([]);
        expect(toJson(v10.TaskSchema, back.message)).toEqual(toJson(v10.TaskSchema, task));
        expect(equals(v10.TaskSchema, back.message, task)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("v0.3 → v1.0 → v0.3 is the identity on stream events (final recomputed from the state)", () => {
    const states03 = fc.constantFrom(...([1, 2, 3, 4, 5, 6, 7] as v03.TaskState[]));
    fc.assert(
      fc.property(id, id, states03, (taskId, contextId, state) => {
        const final = [3, 4, 5, 6, 7].includes(state);
        const ev = create(v03.StreamResponseSchema, {
          payload: { case: "statusUpdate", value: { taskId, contextId, status: { state }, final } },
        });
        const back = older<v03.StreamResponse>(newer(ev).message).message;
        expect(toJson(v03.StreamResponseSchema, back)).toEqual(toJson(v03.StreamResponseSchema, ev));
      }),
    );
  });

  it("v0.3 → v1.0 → v0.3 is the identity on push configs and requests", () => {
    fc.assert(
      fc.property(id, id, fc.webUrl(), text, (taskId, cfgId, url, token) => {
        const cfg = create(v03.TaskPushNotificationConfigSchema, {
          name: `tasks/${taskId}/pushNotificationConfigs/${cfgId}`,
          pushNotificationConfig: { id: cfgId, url, token, authentication: { schemes: ["Bearer"], credentials: "c" } },
        });
        expect(
          equals(
            v03.TaskPushNotificationConfigSchema,
            older<v03.TaskPushNotificationConfig>(newer(cfg).message).message,
            cfg,
          ),
        ).toBe(true);
        const get = create(v03.GetTaskRequestSchema, { name: `tasks/${taskId}`, historyLength: 3 });
        expect(equals(v03.GetTaskRequestSchema, older<v03.GetTaskRequest>(newer(get).message).message, get)).toBe(true);
      }),
    );
  });
});

describe("the changed parameters and objects (FACTS.md B–C)", () => {
  it("blocking ↔ return_immediately, with the defaults of each proto", () => {
    const absent = newer<v10.SendMessageConfiguration>(create(v03.SendMessageConfigurationSchema, {})).message;
    expect(absent.returnImmediately).toBe(true); // v0.3 default false = non-blocking (P03:127-131)
    expect(
      newer<v10.SendMessageConfiguration>(create(v03.SendMessageConfigurationSchema, { blocking: true })).message
        .returnImmediately,
    ).toBe(false);
    expect(older<v03.SendMessageConfiguration>(create(v10.SendMessageConfigurationSchema, {})).message.blocking).toBe(
      true,
    ); // v1.0 default blocks
  });

  it("a v1.0 request without a configuration blocks, so v0.3 gets blocking: true; both paths agree", () => {
    const request = create(v10.SendMessageRequestSchema, { message: { messageId: "m", parts: [] } });
    const viaProto = older<v03.SendMessageRequest>(request).message;
    expect(viaProto.configuration?.blocking).toBe(true); // S10 §3.2.2 l.444; v0.3 default false (P03:127-131)
    expect(toOlderJson(request).json).toMatchObject({ configuration: { blocking: true } });
    // A configuration that asks to return immediately stays non-blocking.
    const immediate = create(v10.SendMessageRequestSchema, { configuration: { returnImmediately: true } });
    expect(older<v03.SendMessageRequest>(immediate).message.configuration?.blocking).toBe(false);
    expect(toOlderJson(immediate).json).toMatchObject({ configuration: { blocking: false } });
  });

  it("history_length: v0.3 0 means no limit, v1.0 0 means none", () => {
    expect(
      newer<v10.GetTaskRequest>(create(v03.GetTaskRequestSchema, { name: "tasks/t", historyLength: 0 })).message
        .historyLength,
    ).toBeUndefined();
    const none = older<v03.GetTaskRequest>(create(v10.GetTaskRequestSchema, { id: "t", historyLength: 0 }));
    expect(none.message.historyLength).toBe(0);
    expect(none.lost.map((l) => l.path)).toEqual(["history_length"]);
  });

  it("TASK_STATE_CANCELLED ↔ TASK_STATE_CANCELED", () => {
    const s = older<v03.TaskStatus>(create(v10.TaskStatusSchema, { state: v10.TaskState.CANCELED })).message;
    expect(v03.TaskState[s.state]).toBe("CANCELLED");
  });

  it("final is recomputed: terminal states and input-required, not auth-required", () => {
    const final = (state: v10.TaskState) =>
      older<v03.TaskStatusUpdateEvent>(
        create(v10.TaskStatusUpdateEventSchema, { taskId: "t", contextId: "c", status: { state } }),
      ).message.final;
    expect(
      [
        v10.TaskState.COMPLETED,
        v10.TaskState.CANCELED,
        v10.TaskState.FAILED,
        v10.TaskState.REJECTED,
        v10.TaskState.INPUT_REQUIRED,
      ].map(final),
    ).toEqual([true, true, true, true, true]);
    expect([v10.TaskState.WORKING, v10.TaskState.SUBMITTED, v10.TaskState.AUTH_REQUIRED].map(final)).toEqual([
      false,
      false,
      false,
    ]);
  });

  it("Part shapes, and what they lose", () => {
    const p = older<v03.Part>(
      create(v10.PartSchema, {
        content: { case: "url", value: "https://x/f.pdf" },
        mediaType: "application/pdf",
        filename: "f.pdf",
      }),
    );
    expect(toJson(v03.PartSchema, p.message)).toEqual({
      file: { fileWithUri: "https://x/f.pdf", mimeType: "application/pdf" },
    });
    expect(p.lost.map((l) => l.path)).toEqual(["filename"]);
    const arr = older<v03.Part>(
      create(v10.PartSchema, { content: { case: "data", value: fromJson(ValueSchema, [1, 2]) } }),
    );
    expect(arr.lost.map((l) => l.path)).toEqual(["data"]);
    const msg = older<v03.Message>(
      create(v10.MessageSchema, {
        messageId: "m",
        parts: [{ content: { case: "text", value: "a" }, metadata: { k: "v" } }],
        referenceTaskIds: ["t0"],
      }),
    );
    expect(msg.lost.map((l) => l.path).sort()).toEqual(["parts[0].metadata", "reference_task_ids"]);
    expect(
      toJson(
        v10.PartSchema,
        newer<v10.Part>(create(v03.PartSchema, { part: { case: "data", value: { data: { a: 1 } } } })).message,
      ),
    ).toEqual({ data: { a: 1 } });
  });

  it("push configs: the wrapper, resource names, and id changing meaning for get and delete", () => {
    const flat = create(v10.TaskPushNotificationConfigSchema, {
      taskId: "t1",
      id: "c1",
      url: "https://h",
      authentication: { scheme: "Bearer" },
    });
    expect(toJson(v03.TaskPushNotificationConfigSchema, older<v03.TaskPushNotificationConfig>(flat).message)).toEqual({
      name: "tasks/t1/pushNotificationConfigs/c1",
      pushNotificationConfig: { id: "c1", url: "https://h", authentication: { schemes: ["Bearer"] } },
    });
    const get = newer<v10.GetTaskPushNotificationConfigRequest>(
      create(v03.GetTaskPushNotificationConfigRequestSchema, { name: "tasks/t1/pushNotificationConfigs/c1" }),
    ).message;
    expect([get.taskId, get.id]).toEqual(["t1", "c1"]);
    const del = older<v03.DeleteTaskPushNotificationConfigRequest>(
      create(v10.DeleteTaskPushNotificationConfigRequestSchema, { taskId: "t1", id: "c1", tenant: "acme" }),
    );
    expect(del.message.name).toBe("tasks/t1/pushNotificationConfigs/c1");
    expect(del.lost.map((l) => l.path)).toEqual(["tenant"]);
    const two = newer<v10.AuthenticationInfo>(create(v03.AuthenticationInfoSchema, { schemes: ["Bearer", "Basic"] }));
    expect([two.message.scheme, two.lost.length]).toEqual(["Bearer", 1]);
  });

  it("agent card interfaces: supportedInterfaces ↔ url, preferredTransport, additionalInterfaces", () => {
    const card = create(v10.AgentCardSchema, {
      name: "a",
      supportedInterfaces: [
        { url: "http://h/v1", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
        { url: "http://h/v03", protocolBinding: "JSONRPC", protocolVersion: "0.3" },
        { url: "http://h/v03rest", protocolBinding: "HTTP+JSON", protocolVersion: "0.3" },
      ],
      capabilities: { extendedAgentCard: true, streaming: true },
    });
    const c03 = older<v03.AgentCard>(card).message;
    expect([c03.url, c03.preferredTransport, c03.protocolVersion, c03.supportsAuthenticatedExtendedCard]).toEqual([
      "http://h/v03",
      "JSONRPC",
      "0.3",
      true,
    ]);
    expect(c03.additionalInterfaces.map((i) => [i.url, i.transport])).toEqual([
      ["http://h/v03", "JSONRPC"],
      ["http://h/v03rest", "HTTP+JSON"],
    ]);
    const back = newer<v10.AgentCard>(c03).message;
    expect(back.supportedInterfaces.map((i) => [i.url, i.protocolBinding, i.protocolVersion])).toEqual([
      ["http://h/v03", "JSONRPC", "0.3"],
      ["http://h/v03rest", "HTTP+JSON", "0.3"],
    ]);
    expect(back.capabilities?.extendedAgentCard).toBe(true);
  });
});

describe("the converter", () => {
  it("reports losses at their paths, with the plan's reasons", () => {
    const req = older<v03.SendMessageRequest>(
      create(v10.SendMessageRequestSchema, {
        tenant: "acme",
        message: { messageId: "m", parts: [{ content: { case: "text", value: "a" }, filename: "f.txt" }] },
        configuration: { taskPushNotificationConfig: { tenant: "acme", url: "https://h" }, historyLength: 0 },
      }),
    );
    expect(req.lost).toEqual([
      { path: "tenant", reason: "v0.3 has no tenant" },
      { path: "message.parts[0].filename", reason: "the v0.3 proto FilePart has no file name" },
      { path: "configuration.task_push_notification_config.tenant", reason: "v0.3 has no tenant" },
      {
        path: "configuration.history_length",
        reason: "v0.3 cannot ask for no history (0 means no limit there); sent without a limit",
      },
    ]);
    expect(req.message.configuration?.pushNotification?.url).toBe("https://h");
  });

  it("reports an enum value the older version lacks, and refuses one toward the newer version", () => {
    const status = older<v03.TaskStatus>(create(v10.TaskStatusSchema, { state: 42 as v10.TaskState }));
    expect(status.message.state).toBe(0);
    expect(status.lost).toEqual([
      { path: "state", reason: "no a2a.v1.TaskState value for 42; written as TASK_STATE_UNSPECIFIED" },
    ]);
    const task = create(v03.TaskSchema, { id: "t", status: { state: 42 as v03.TaskState } });
    expect(() => newer(task)).toThrow(CompatJsonError);
    expect(() => newer(task)).toThrow(/a2a\.v1\.TaskStatus\.state at status\.state \(unknown value 42\)/);
  });

  it("refuses a part without content toward the newer version, naming where it is", () => {
    const msg = create(v03.MessageSchema, { messageId: "m", content: [{ part: { case: "text", value: "a" } }, {}] });
    expect(() => newer(msg)).toThrow(/a2a\.v1\.Part at content\[1\] \(a part needs text, a file or data\)/);
    const file = create(v03.PartSchema, { part: { case: "file", value: { mimeType: "text/plain" } } });
    expect(() => newer(file)).toThrow(/a2a\.v1\.FilePart at file \(a file needs uri or bytes\)/);
  });

  it("dispatches by type name: counterparts, well-known types, the wrong side", () => {
    expect(a2aCompat.counterpart("lf.a2a.v1.SubscribeToTaskRequest")).toBe("a2a.v1.TaskSubscriptionRequest");
    expect(a2aCompat.counterpart("a2a.v1.TaskSubscriptionRequest")).toBe("lf.a2a.v1.SubscribeToTaskRequest");
    expect(a2aCompat.counterpart("lf.a2a.v1.ListTasksRequest")).toBeUndefined();
    expect(a2aCompat.registry.getMessage("a2a.v1.Task")?.typeName).toBe("a2a.v1.Task");
    const empty = { $typeName: "google.protobuf.Empty" } as Message;
    expect(a2aCompat.convert(empty, "toOlder").message).toBe(empty);
    expect(() => older(create(v03.TaskSchema, {}))).toThrow("compat: a2a.v1.Task is already on that side");
    expect(() => older(create(v10.ListTasksRequestSchema, {}))).toThrow(
      "compat: lf.a2a.v1.ListTasksRequest has no counterpart",
    );
  });

  it("converts requests to the other operation's request type, v0.3 Create as a wrapped request", () => {
    const create03 = create(v03.CreateTaskPushNotificationConfigRequestSchema, {
      parent: "tasks/t1",
      configId: "c1",
      config: { pushNotificationConfig: { url: "https://example.com/hook", token: "tok" } },
    });
    const v10Type = "lf.a2a.v1.TaskPushNotificationConfig";
    const up = a2aCompat.convertRequest<v10.TaskPushNotificationConfig>(create03, v10Type).message;
    expect([up.$typeName, up.taskId, up.id, up.url, up.token]).toEqual([
      v10Type,
      "t1",
      "c1",
      create03.config?.pushNotificationConfig?.url,
      "tok",
    ]);
    // The held config's own name agrees with parent and config_id, or gives what they leave out; a name of
    // another task or config is refused (the route names one task, the body may not write to another's).
    const named = (parent: string, configId: string, name: string) =>
      create(v03.CreateTaskPushNotificationConfigRequestSchema, {
        parent,
        configId,
        config: { name, pushNotificationConfig: { url: "https://x" } },
      });
    const ids = (request: v03.CreateTaskPushNotificationConfigRequest) => {
      const { taskId, id } = a2aCompat.convertRequest<v10.TaskPushNotificationConfig>(request, v10Type).message;
      return [taskId, id];
    };
    expect(ids(named("tasks/t1", "c1", "tasks/t1/pushNotificationConfigs/c1"))).toEqual(["t1", "c1"]);
    expect(ids(named("tasks/t1", "", "tasks/t1/pushNotificationConfigs/c2"))).toEqual(["t1", "c2"]);
    expect(ids(named("", "", "tasks/t2/pushNotificationConfigs/c2"))).toEqual(["t2", "c2"]);
    expect(() => ids(named("tasks/t1", "c1", "tasks/t2/pushNotificationConfigs/c1"))).toThrow(
      "cannot decode a2a.v1.CreateTaskPushNotificationConfigRequest at parent (it names t1, the message it holds t2)",
    );
    expect(() => ids(named("tasks/t1", "c1", "tasks/t1/pushNotificationConfigs/c2"))).toThrow(
      "cannot decode a2a.v1.CreateTaskPushNotificationConfigRequest at config_id " +
        "(it names c1, the message it holds c2)",
    );
    const down = a2aCompat.convertRequest<v03.CreateTaskPushNotificationConfigRequest>(up, create03.$typeName).message;
    expect([down.parent, down.configId, down.config?.name]).toEqual([
      "tasks/t1",
      "c1",
      "tasks/t1/pushNotificationConfigs/c1",
    ]);
    expect(down.config?.pushNotificationConfig?.url).toBe("https://example.com/hook");
    // A request pair converts as convert does; anything else throws; a wrapper without its config is refused.
    const get = create(v10.GetTaskRequestSchema, { id: "t1" });
    expect(a2aCompat.convertRequest<v03.GetTaskRequest>(get, "a2a.v1.GetTaskRequest").message.name).toBe("tasks/t1");
    expect(() => a2aCompat.convertRequest(get, "a2a.v1.CancelTaskRequest")).toThrow(
      "compat: lf.a2a.v1.GetTaskRequest does not convert to a2a.v1.CancelTaskRequest",
    );
    const bare = create(v03.CreateTaskPushNotificationConfigRequestSchema, { parent: "tasks/t1" });
    expect(() => a2aCompat.convertRequest(bare, v10Type)).toThrow(CompatJsonError);
  });
});
