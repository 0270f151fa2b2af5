/**
 * Push notifications end to end: createTaskHandler with the real push
 * sender (createPushSender, loopback allowed for the test) posting to a
 * webhook server on 127.0.0.1. A config made by a v1.0 call gets v1.0
 * StreamResponses (application/a2a+json), one made by a v0.3 call through the
 * bridge gets the v0.3 Task (application/json), each in commit order, with
 * the config's token; a deleted config gets nothing more.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createPushSender,
  createTaskHandler,
  TaskState,
  type AgentExecutor,
  type PushSender,
} from "@protoc-gen-a2a/runtime/task";
import { olderPushPayloads } from "../../generated-samples/a2a_compat.js";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { Role, type SendMessageResponse, type Task } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { startTaskServers, type TaskServers } from "./task-servers.js";

interface Hook {
  readonly path: string;
  readonly contentType: string;
  readonly token: string;
  readonly body: Record<string, unknown>;
}

const hooks: Hook[] = [];
let webhook: Server;
let hookBase: string;
let servers: TaskServers;
let sender: PushSender;
const gates = new Map<string, () => void>();

const read = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};

/** Works, waits at a gate (so the test can register configs), then one artifact and completed. */
const executor: AgentExecutor = {
  async execute(ctx, up) {
    await up.status(TaskState.WORKING);
    await new Promise<void>((resolve) => gates.set(ctx.taskId, resolve));
    await up.artifact({
      $typeName: "lf.a2a.v1.Artifact",
      artifactId: "a",
      name: "",
      description: "",
      parts: [{ $typeName: "lf.a2a.v1.Part", content: { case: "text", value: "out" }, filename: "", mediaType: "" }],
      extensions: [],
    });
    await up.status(TaskState.COMPLETED, "done");
  },
};

beforeAll(async () => {
  webhook = createServer((req, res) => {
    void read(req).then((body) => {
      hooks.push({
        path: req.url ?? "",
        contentType: req.headers["content-type"] ?? "",
        token: String(req.headers["x-a2a-notification-token"] ?? ""),
        body: JSON.parse(body) as Record<string, unknown>,
      });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => webhook.listen(0, "127.0.0.1", resolve));
  hookBase = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}`;
  sender = createPushSender({ allowHosts: ["127.0.0.1"], attempts: 1 });
  const handler = createTaskHandler({
    definition: A2AServiceV1_0,
    executor,
    push: { sender, payload: olderPushPayloads },
  });
  servers = await startTaskServers(handler);
});
afterAll(async () => {
  await servers?.close();
  await new Promise<void>((resolve) => webhook?.close(() => resolve()));
});

const LOOKS = 400;
async function until(what: string, test: () => boolean): Promise<void> {
  for (let i = 0; i < LOOKS && !test(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!test()) throw new Error(`not seen: ${what}`);
}

const taskOf = (r: SendMessageResponse) => r.payload.value as Task;

describe("push delivery through the real sender", () => {
  it("each config gets its call's version, in commit order, with its token; a deleted one nothing", async () => {
    const newer = servers.client("JSONRPC 1.0");
    const older = servers.client("JSONRPC 0.3");
    const message = { messageId: "m", role: Role.USER, parts: [{ content: { case: "text" as const, value: "go" } }] };
    const task = taskOf(await newer.sendMessage({ message, configuration: { returnImmediately: true } }));
    await until("the executor at its gate", () => gates.has(task.id));
    await newer.createTaskPushNotificationConfig({ taskId: task.id, id: "n", url: `${hookBase}/n`, token: "tn" });
    await older.createTaskPushNotificationConfig({ taskId: task.id, id: "o", url: `${hookBase}/o`, token: "to" });
    await newer.createTaskPushNotificationConfig({ taskId: task.id, id: "gone", url: `${hookBase}/gone` });
    await newer.deleteTaskPushNotificationConfig({ taskId: task.id, id: "gone" });
    gates.get(task.id)!();
    await until("two deliveries to each config", () => hooks.length >= 4);
    await sender.idle();

    const to = (path: string) => hooks.filter((h) => h.path === path);
    expect(to("/gone")).toEqual([]);
    const n = to("/n");
    expect(n.map((h) => [h.contentType, h.token])).toEqual(Array(2).fill(["application/a2a+json", "tn"]));
    expect(n.map((h) => Object.keys(h.body)[0])).toEqual(["artifactUpdate", "statusUpdate"]);
    expect(n[1]!.body).toMatchObject({ statusUpdate: { taskId: task.id, status: { state: "TASK_STATE_COMPLETED" } } });
    const o = to("/o");
    expect(o.map((h) => [h.contentType, h.token])).toEqual(Array(2).fill(["application/json", "to"]));
    expect(o.map((h) => (h.body["status"] as { state: string }).state)).toEqual(["working", "completed"]);
    expect(o[1]!.body).toMatchObject({ kind: "task", id: task.id, artifacts: [{ artifactId: "a" }] });
  });
});
