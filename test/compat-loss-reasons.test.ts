/**
 * One loss reason per field, whatever the path: for each field v0.3 cannot
 * carry, the JSON-RPC path (toOlderJson, the generated a2a.json conversions)
 * and the proto path (a2aCompat.convert, which REST and gRPC bridging take)
 * report the same reason at the same path. Fields a2a.json has a key for and
 * the v0.3 proto lacks (the plan's dialectFields) travel on the JSON-RPC path
 * and are reported lost, with the plan's reason, on the proto path only.
 */
import { describe, expect, it } from "vitest";
import { create, type Message } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { a2aCompat, toOlderJson, type OlderJsonMessage } from "../generated-samples/a2a_compat.js";
import * as v10 from "../generated-samples/v1.0.1/a2a_pb.js";

interface Case {
  readonly name: string;
  readonly message: OlderJsonMessage;
  /** The loss path in the newer message. */
  readonly path: string;
  /** The reason both paths give. */
  readonly reason: string;
}

const tenant = "v0.3 has no tenant";
const text = (init: object = {}) => create(v10.PartSchema, { content: { case: "text", value: "hi" }, ...init });

/** The plan's lossy steps and the transforms' losses, toward v0.3. */
const cases: Case[] = [
  {
    name: "AgentInterface.tenant",
    message: create(v10.AgentInterfaceSchema, { url: "u", tenant: "t" }),
    path: "tenant",
    reason: "v0.3 interfaces have no tenant",
  },
  {
    name: "OAuthFlows.device_code",
    message: create(v10.OAuthFlowsSchema, { flow: { case: "deviceCode", value: { tokenUrl: "t" } } }),
    path: "device_code",
    reason: "v0.3 has no device-code flow",
  },
  {
    name: "AuthorizationCodeOAuthFlow.pkce_required",
    message: create(v10.AuthorizationCodeOAuthFlowSchema, { pkceRequired: true }),
    path: "pkce_required",
    reason: "v0.3 has no pkce_required",
  },
  ...(
    [
      ["TaskPushNotificationConfig", v10.TaskPushNotificationConfigSchema],
      ["SendMessageRequest", v10.SendMessageRequestSchema],
      ["GetTaskRequest", v10.GetTaskRequestSchema],
      ["CancelTaskRequest", v10.CancelTaskRequestSchema],
      ["GetTaskPushNotificationConfigRequest", v10.GetTaskPushNotificationConfigRequestSchema],
      ["DeleteTaskPushNotificationConfigRequest", v10.DeleteTaskPushNotificationConfigRequestSchema],
      ["SubscribeToTaskRequest", v10.SubscribeToTaskRequestSchema],
      ["ListTaskPushNotificationConfigsRequest", v10.ListTaskPushNotificationConfigsRequestSchema],
      ["GetExtendedAgentCardRequest", v10.GetExtendedAgentCardRequestSchema],
    ] as const
  ).map(([name, schema]) => ({
    name: `${name}.tenant`,
    message: create(schema as typeof v10.GetTaskRequestSchema, { tenant: "t" }) as OlderJsonMessage,
    path: "tenant",
    reason: tenant,
  })),
  {
    name: "SendMessageConfiguration.history_length 0",
    message: create(v10.SendMessageConfigurationSchema, { historyLength: 0 }),
    path: "history_length",
    reason: "v0.3 cannot ask for no history (0 means no limit there); sent without a limit",
  },
  {
    name: "SendMessageConfiguration.task_push_notification_config.tenant",
    message: create(v10.SendMessageConfigurationSchema, { taskPushNotificationConfig: { url: "u", tenant: "t" } }),
    path: "task_push_notification_config.tenant",
    reason: tenant,
  },
  {
    name: "Part.media_type of a text part",
    message: text({ mediaType: "text/plain" }),
    path: "media_type",
    reason: "a v0.3 text part has no media type",
  },
  {
    name: "Part.data that is not an object",
    message: create(v10.PartSchema, {
      content: { case: "data", value: create(ValueSchema, { kind: { case: "numberValue", value: 1 } }) },
    }),
    path: "data",
    reason: "a v0.3 data part holds an object; this value was wrapped as {value: …}",
  },
  {
    name: "AgentCard.supported_interfaces without a 0.x interface",
    message: create(v10.AgentCardSchema, { supportedInterfaces: [{ url: "u", protocolVersion: "1.0" }] }),
    path: "supported_interfaces",
    reason: "no 0.x interface; the v0.3 card lists interfaces a v0.3 client may not speak",
  },
];

/** What a2a.json carries and the v0.3 proto does not: the JSON-RPC path keeps it, the proto path reports it. */
const dialectFields: Case[] = [
  {
    name: "Part.metadata",
    message: text({ metadata: { k: 1 } }),
    path: "metadata",
    reason: "the v0.3 proto Part has no metadata",
  },
  {
    name: "Part.filename",
    message: create(v10.PartSchema, { content: { case: "url", value: "u" }, filename: "f.txt" }),
    path: "filename",
    reason: "the v0.3 proto FilePart has no file name",
  },
  {
    name: "AgentCard.icon_url",
    message: create(v10.AgentCardSchema, { iconUrl: "i" }),
    path: "icon_url",
    reason: "the v0.3 proto AgentCard has no icon_url",
  },
  {
    name: "CancelTaskRequest.metadata",
    message: create(v10.CancelTaskRequestSchema, { id: "t", metadata: { k: 1 } }),
    path: "metadata",
    reason: "the v0.3 proto CancelTaskRequest has no metadata",
  },
];

const reasonsAt = (lost: readonly { path: string; reason: string }[], path: string) =>
  lost.filter((l) => l.path === path).map((l) => l.reason);

describe("one loss reason per field, whatever the path", () => {
  for (const c of cases)
    it(`${c.name}: the JSON-RPC and the proto path give the same reason`, () => {
      const json = reasonsAt(toOlderJson(c.message).lost, c.path);
      const proto = reasonsAt(a2aCompat.convert(c.message as Message, "toOlder").lost, c.path);
      expect(json).toEqual([c.reason]);
      expect(proto).toEqual([c.reason]);
    });

  for (const c of dialectFields)
    it(`${c.name}: carried by a2a.json, reported with the plan's reason by the proto path`, () => {
      expect(reasonsAt(toOlderJson(c.message).lost, c.path)).toEqual([]);
      expect(reasonsAt(a2aCompat.convert(c.message as Message, "toOlder").lost, c.path)).toEqual([c.reason]);
    });
});
