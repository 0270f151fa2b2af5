/**
 * A v0.3 push config always carries the two keys a2a.json requires of it (TaskPushNotificationConfig:
 * taskId and pushNotificationConfig, v0.3.0 a2a.json l.2367), on both paths that write it: the a2a.json
 * codec of the v0.3 stubs (from the proto's resource name `name`) and the one-pass conversion from v1.0
 * (from `task_id`). With a name or task id they carry it; without one, an empty taskId, as a2a.json's
 * schema (checked with ajv) then still accepts. Both paths write the same JSON, key order included.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { create, toJson, type JsonValue } from "@bufbuild/protobuf";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { toOlderJson } from "../generated-samples/a2a_compat.js";
import { A2AServiceV0_3 } from "../generated-samples/v0.3.0/a2a_a2a.js";
import * as v03 from "../generated-samples/v0.3.0/a2a_pb.js";
import * as v10 from "../generated-samples/v1.0.1/a2a_pb.js";
import { repoRoot } from "./helpers/run.js";

const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addSchema(JSON.parse(readFileSync(join(repoRoot, "../shared/a2a-spec/v0.3.0/a2a.json"), "utf8")), "a2a");
const valid = ajv.getSchema("a2a#/definitions/TaskPushNotificationConfig")!;

/** The codec's a2a.json of a v0.3 push config message. */
const codecJson = (m: v03.TaskPushNotificationConfig): JsonValue =>
  A2AServiceV0_3.jsonrpcCodec!.encode(
    v03.TaskPushNotificationConfigSchema,
    toJson(v03.TaskPushNotificationConfigSchema, m),
  );

const CASES = [
  { what: "with its task and config ids", taskId: "t-1", id: "c-1" },
  { what: "without a task id", taskId: "", id: "c-1" },
  { what: "without either id", taskId: "", id: "" },
];

describe("a v0.3 push config in a2a.json", () => {
  it.each(CASES)("$what: both paths write taskId and pushNotificationConfig, valid for a2a.json", (c) => {
    const name = c.taskId ? `tasks/${c.taskId}/pushNotificationConfigs/${c.id}` : "";
    const older = create(v03.TaskPushNotificationConfigSchema, {
      name,
      pushNotificationConfig: { id: c.id, url: "https://client.example.com/hook" },
    });
    const newer = create(v10.TaskPushNotificationConfigSchema, {
      taskId: c.taskId,
      id: c.id,
      url: "https://client.example.com/hook",
    });
    const fromCodec = codecJson(older);
    const fromNewer = toOlderJson(newer).json;
    expect(fromCodec).toMatchObject({
      taskId: c.taskId,
      pushNotificationConfig: { url: "https://client.example.com/hook" },
    });
    expect(valid(fromCodec), JSON.stringify(valid.errors)).toBe(true);
    expect(valid(fromNewer), JSON.stringify(valid.errors)).toBe(true);
    if (c.taskId) expect(JSON.stringify(fromNewer)).toBe(JSON.stringify(fromCodec));
  });

  it("the codec writes the keys even for a config the proto left empty", () => {
    const json = codecJson(create(v03.TaskPushNotificationConfigSchema));
    expect(Object.keys(json as object)).toEqual(["taskId", "pushNotificationConfig"]);
    expect((json as { taskId: unknown }).taskId).toBe("");
  });
});
