/**
 * The generated a2a.json codec of v0.3 (generated-samples/v0.3.0/a2a_jsonrpc_codec.ts,
 * written by src/emit/jsonrpc-codec-*.ts from the api.jsonrpcDialect table): one case
 * per whole-message rule and per refusal, with the exact output, losses and messages.
 * Every rule is also exercised end to end by the v0.3 interop tests (v03-matrix,
 * v03-jsonrpc-schema, compat-no-coercion).
 */
import { describe, expect, it } from "vitest";
import type { DescMessage, JsonValue } from "@bufbuild/protobuf";
import { EmptySchema } from "@bufbuild/protobuf/wkt";
import type { JsonRpcDialect } from "@protoc-gen-a2a/runtime/protocol";
import { A2AServiceV0_3 } from "../../generated-samples/v0.3.0/a2a_a2a.js";
import * as v03 from "../../generated-samples/v0.3.0/a2a_pb.js";
import * as v10 from "../../generated-samples/v1.0.1/a2a_pb.js";
import { dialectRules } from "../../src/compat/dialect-ir.js";
import { Problems } from "../../src/generation-error.js";

const codec = A2AServiceV0_3.jsonrpcCodec!;

/** What a codec call gives: its output, or the message it throws; and the losses it reported. */
function run(f: (onDrop: (path: string, reason: string) => void) => JsonValue) {
  const lost: string[] = [];
  try {
    return { out: f((path, reason) => lost.push(`${path}: ${reason}`)), lost };
  } catch (e) {
    return { error: (e as Error).message, lost };
  }
}
const encode = (m: DescMessage, json: unknown) => run((d) => codec.encode(m, json as JsonValue, d));
const decode = (m: DescMessage, json: unknown) => run((d) => codec.decode(m, json as JsonValue, d));

describe("whole-message rules", () => {
  it("google.protobuf.Empty is null, and anything reads back as the empty message", () => {
    expect(encode(EmptySchema, {})).toEqual({ out: null, lost: [] });
    expect(decode(EmptySchema, null)).toEqual({ out: {}, lost: [] });
  });

  it("an array result is the bare array of its field; resource names become ids and back", () => {
    const proto = { configs: [{ name: "tasks/t1/pushNotificationConfigs/c1", pushNotificationConfig: { url: "u" } }] };
    const json = [{ taskId: "t1", pushNotificationConfig: { id: "c1", url: "u" } }];
    expect(encode(v03.ListTaskPushNotificationConfigResponseSchema, proto)).toEqual({ out: json, lost: [] });
    expect(decode(v03.ListTaskPushNotificationConfigResponseSchema, json).out).toEqual({
      configs: [{ name: "tasks/t1/pushNotificationConfigs/c1", pushNotificationConfig: { id: "c1", url: "u" } }],
    });
  });

  it("a union is its member; without a kind, a message is told from a task by its messageId", () => {
    const msg = { messageId: "m", role: "user", parts: [{ text: "hi" }] };
    expect(decode(v03.SendMessageResponseSchema, msg)).toEqual({
      out: { message: { messageId: "m", role: "ROLE_USER", content: [{ text: "hi" }] } },
      lost: [],
    });
    expect(decode(v03.SendMessageResponseSchema, { kind: "status-update" }).error).toBe(
      'cannot decode a2a.v1.SendMessageResponse at kind from JSON: unknown kind "status-update" (task, message)',
    );
    expect(encode(v03.SendMessageResponseSchema, {})).toEqual({
      out: {},
      lost: ["payload: a2a.v1.SendMessageResponse sets none of payload; a2a.json has no form for it"],
    });
  });

  it("reads a status timestamp without a UTC offset (as the v0.3 specification writes them) as UTC, a loss", () => {
    const status = (timestamp: string) => ({
      kind: "task",
      id: "t",
      contextId: "c",
      status: { state: "working", timestamp },
    });
    expect(decode(v03.SendMessageResponseSchema, status("2025-04-02T16:59:25.331844"))).toEqual({
      out: {
        task: {
          id: "t",
          contextId: "c",
          status: { state: "TASK_STATE_WORKING", timestamp: "2025-04-02T16:59:25.331844Z" },
        },
      },
      lost: ["status.timestamp: the date-time has no UTC offset; read as UTC"],
    });
    // With an offset, or not a date-time at all (ProtoJSON refuses it then), as it is.
    for (const t of ["2025-04-02T16:59:25+02:00", "2025-04-02T16:59:25Z", "2025-04-02"]) {
      expect(decode(v03.SendMessageResponseSchema, status(t)).lost).toEqual([]);
    }
  });

  it("reports the content of another kind than the part's as lost", () => {
    const message = { kind: "message", messageId: "m", role: "user", parts: [{ kind: "text", text: "t", data: {} }] };
    expect(decode(v03.SendMessageResponseSchema, message).lost).toEqual([
      "parts[0].data: a text part holds no data; not kept",
    ]);
  });

  it("a request holding a resource name is written with the ids, and read back", () => {
    expect(encode(v03.GetTaskRequestSchema, { name: "tasks/t1", historyLength: 2 }).out).toEqual({
      id: "t1",
      historyLength: 2,
    });
    expect(decode(v03.GetTaskRequestSchema, { id: "t1", historyLength: 2 }).out).toEqual({
      name: "tasks/t1",
      historyLength: 2,
    });
  });

  it("a wrapper request is its field, the others derived by their templates", () => {
    const json = { taskId: "t1", pushNotificationConfig: { id: "c1", url: "u" } };
    expect(decode(v03.CreateTaskPushNotificationConfigRequestSchema, json).out).toEqual({
      config: { name: "tasks/t1/pushNotificationConfigs/c1", pushNotificationConfig: { id: "c1", url: "u" } },
      parent: "tasks/t1",
      configId: "c1",
    });
  });
});

describe("fields", () => {
  it("always-emitted fields, kinds, renames and enum spellings", () => {
    expect(encode(v03.MessageSchema, { messageId: "m", content: [{ text: "a" }] })).toEqual({
      out: { kind: "message", messageId: "m", role: "agent", parts: [{ kind: "text", text: "a" }] },
      lost: [],
    });
  });

  it("an enum number without a name is written as the value 0's spelling, reported", () => {
    expect(encode(v03.TaskStatusSchema, { state: 99 })).toEqual({
      out: { state: "unknown" },
      lost: ["state: no a2a.v1.TaskState value for 99; written as TASK_STATE_UNSPECIFIED"],
    });
  });

  it("a part a2a.json has no form for is left out of its list, reported", () => {
    const r = encode(v03.MessageSchema, { messageId: "m", content: [{ text: "a" }, {}, { file: { mimeType: "x" } }] });
    expect(r.out).toEqual({ kind: "message", messageId: "m", role: "agent", parts: [{ kind: "text", text: "a" }] });
    expect(r.lost.map((l) => l.split(":")[0])).toEqual(["parts[1]", "parts[2]"]);
  });

  it("a second member of a oneof is reported, the first kept", () => {
    const flows = { implicit: { authorizationUrl: "a", scopes: {} }, password: { tokenUrl: "t", scopes: {} } };
    expect(decode(v03.OAuthFlowsSchema, flows)).toEqual({
      out: { implicit: { authorizationUrl: "a", scopes: {} } },
      lost: ["password: a2a.v1.OAuthFlows.flow holds one member; password was not kept"],
    });
  });

  it("a key no field reads is reported", () => {
    expect(decode(v03.TaskStatusSchema, { state: "working", extra: 1 })).toEqual({
      out: { state: "TASK_STATE_WORKING" },
      lost: ["extra: a2a.v1.TaskStatus has no field for it"],
    });
  });
});

describe("refusals", () => {
  it("name the path, and what was lost before them is still reported", () => {
    expect(decode(v03.PartSchema, { kind: "text", text: 5, metadata: {} })).toEqual({
      error: "cannot decode a2a.v1.Part.text from JSON: 5 (expected a string)",
      lost: ["metadata: the v0.3 proto Part has no metadata"],
    });
    expect(decode(v03.TaskSchema, { id: "t", status: { state: "bogus" } }).error).toBe(
      'cannot decode a2a.v1.TaskStatus.state at status.state from JSON: unknown value "bogus"',
    );
    const both = { messageId: "m", role: "agent", parts: [{ kind: "file", file: { uri: "u", bytes: "AA" } }] };
    expect(decode(v03.MessageSchema, both).error).toBe(
      "cannot decode oneof a2a.v1.FilePart.file (set by both uri and bytes) at parts[0].file from JSON: object",
    );
    expect(decode(v03.TaskSchema, { kind: "message" }).error).toBe(
      'cannot decode a2a.v1.Task at kind from JSON: unknown kind "message" (task)',
    );
  });

  it("a message of another version has no coders", () => {
    expect(() => codec.encode(v10.TaskSchema, {})).toThrow("a2a.json codec: no coders for lf.a2a.v1.Task");
  });
});

describe("generation", () => {
  it("works out once the enum spellings, resource ids a request may leave out and the runtime's names", () => {
    const d: JsonRpcDialect = {
      enums: { ROLE_USER: "user" },
      kinds: {},
      renames: { "a2a.v1.Message.content": "parts" },
      part: {
        message: "a2a.v1.Part",
        file: { message: "a2a.v1.FilePart", uri: "file_with_uri", bytes: "file_with_bytes" },
        data: { message: "a2a.v1.DataPart", field: "data" },
      },
      unions: [],
      resourceNames: [
        {
          message: "a2a.v1.GetTaskPushNotificationConfigRequest",
          field: "name",
          pattern: "tasks/{id}/c/{cfg}",
          optional: ["cfg"],
        },
      ],
      wrappers: [
        {
          message: "a2a.v1.CreateTaskPushNotificationConfigRequest",
          field: "config",
          derived: { parent: "tasks/{taskId}" },
        },
      ],
      arrayResults: {},
      nullResults: ["google.protobuf.Empty"],
      alwaysEmit: {},
    };
    const problems = new Problems();
    const messages = [
      v03.GetTaskPushNotificationConfigRequestSchema,
      v03.CreateTaskPushNotificationConfigRequestSchema,
    ];
    const ir = dialectRules(d, messages, problems);
    expect(problems.all).toEqual([]);
    expect([...ir.enumSpellings]).toEqual([["ROLE_USER", "user"]]);
    const name = ir.messages
      .get("a2a.v1.GetTaskPushNotificationConfigRequest")!
      .fields.find((x) => x.f.name === "name");
    expect(name).toMatchObject({ resource: "tasks/{id}/c/{cfg}", optionalIds: ["cfg"] });
    const wrapper = ir.messages.get("a2a.v1.CreateTaskPushNotificationConfigRequest")!.rule;
    expect(wrapper).toMatchObject({
      kind: "wrapper",
      derived: [{ jsonName: "parent", name: "parent", pattern: "tasks/{taskId}" }],
    });
    expect(ir.runtimeNames).toEqual({
      enums: { ROLE_USER: "user" },
      part: "a2a.v1.Part",
      wrappers: [{ message: "a2a.v1.CreateTaskPushNotificationConfigRequest", field: "config" }],
      renames: { "a2a.v1.Message.content": "parts" },
      resourceNames: {
        "a2a.v1.GetTaskPushNotificationConfigRequest.name": { pattern: "tasks/{id}/c/{cfg}", optional: ["cfg"] },
        "a2a.v1.CreateTaskPushNotificationConfigRequest.parent": { pattern: "tasks/{taskId}" },
      },
    });
  });

  it("reports a message that two whole-message rules claim, and a rule's missing field, naming them", () => {
    const d: JsonRpcDialect = {
      enums: {},
      kinds: {},
      renames: {},
      part: {
        message: "a2a.v1.Part",
        file: { message: "a2a.v1.FilePart", uri: "file_with_uri", bytes: "file_with_bytes" },
        data: { message: "a2a.v1.DataPart", field: "data" },
      },
      unions: ["a2a.v1.StreamResponse"],
      resourceNames: [],
      wrappers: [],
      arrayResults: { "a2a.v1.StreamResponse": "task", "a2a.v1.Task": "tasks" },
      nullResults: [],
      alwaysEmit: {},
    };
    const problems = new Problems();
    dialectRules(d, [v03.StreamResponseSchema, v03.TaskSchema], problems);
    expect(problems.all).toEqual([
      "jsonrpcDialect: a2a.v1.StreamResponse has array and union rules",
      "jsonrpcDialect arrayResults: a2a.v1.Task has no field tasks",
    ]);
  });
});
