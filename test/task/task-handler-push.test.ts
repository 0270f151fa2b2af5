/**
 * Push notifications end to end: createTaskHandler with the real push
 * sender (createPushSender, loopback allowed for the test) posting to a
 * webhook server on 127.0.0.1. A config made by a v1.0 call gets v1.0
 * StreamResponses (application/a2a+json), one made by a v0.3 call through the
 * bridge gets the v0.3 Task (application/json), each in commit order, with
 * the config's token; a deleted config gets nothing more, not even what
 * waited for it when it was deleted. A config whose token, authentication scheme or
 * credentials, or URL, no delivery could send (a control character, a character node:http cannot send, more
 * than 4096 characters) is refused by CreateTaskPushNotificationConfig and by SendMessage's
 * configuration.taskPushNotificationConfig on every way in, naming the field, and nothing is stored.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A2AError } from "@protoc-gen-a2a/runtime";
import {
  createPushSender,
  createTaskHandler,
  TaskState,
  type AgentExecutor,
  type PushDelivery,
  type PushSender,
} from "@protoc-gen-a2a/runtime/task";
import { olderPushPayloads } from "../../generated-samples/a2a_compat.js";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import {
  Role,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
} from "../../generated-samples/v1.0.1/a2a_pb.js";
import { startTaskServers, WAYS, type TaskServers, type Way } from "./task-servers.js";

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
/** Webhook answers to /hold wait for this; released by the test that holds them. */
let holding = Promise.resolve();

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
      if (req.url === "/hold") void holding.then(() => res.writeHead(204).end());
      else res.writeHead(204).end();
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

  it("a config deleted while its deliveries wait gets nothing more", async () => {
    let release = () => {};
    holding = new Promise<void>((resolve) => (release = resolve));
    const newer = servers.client("JSONRPC 1.0");
    const message = { messageId: "m", role: Role.USER, parts: [{ content: { case: "text" as const, value: "go" } }] };
    const task = taskOf(await newer.sendMessage({ message, configuration: { returnImmediately: true } }));
    await until("the executor at its gate", () => gates.has(task.id));
    await newer.createTaskPushNotificationConfig({ taskId: task.id, id: "h", url: `${hookBase}/hold` });
    gates.get(task.id)!();
    // The artifact update is held at the webhook; the completed status waits behind it.
    await until("the first delivery at the webhook", () => hooks.some((h) => h.path === "/hold"));
    await newer.deleteTaskPushNotificationConfig({ taskId: task.id, id: "h" });
    release();
    await sender.idle();
    expect(hooks.filter((h) => h.path === "/hold").map((h) => Object.keys(h.body)[0])).toEqual(["artifactUpdate"]);
  });
});

describe("push bodies", () => {
  it("writes each event once per protocol version, one string for every config of that version", async () => {
    const sent: PushDelivery[] = [];
    let written = 0;
    const recorder: PushSender = {
      checkUrl: async () => undefined,
      send: (d) => void sent.push(d),
      idle: async () => undefined,
    };
    const count = (e: StreamResponse) => {
      written += 1;
      return { case: e.payload.case };
    };
    const handler = createTaskHandler({
      definition: A2AServiceV1_0,
      executor,
      push: { sender: recorder, payload: { "1.0": count } },
    });
    const local = await startTaskServers(handler);
    try {
      const client = local.client("JSONRPC 1.0");
      const message = { messageId: "m", role: Role.USER, parts: [{ content: { case: "text" as const, value: "go" } }] };
      const task = taskOf(await client.sendMessage({ message, configuration: { returnImmediately: true } }));
      await until("the executor at its gate", () => gates.has(task.id));
      for (const id of ["a", "b", "c"]) {
        await client.createTaskPushNotificationConfig({ taskId: task.id, id, url: `${hookBase}/${id}` });
      }
      gates.get(task.id)!();
      await until("two deliveries to each of three configs", () => sent.length >= 6);
      expect(written).toBe(2);
      const bodies = (id: string) => sent.filter((d) => d.config.id === id).map((d) => d.body);
      expect(bodies("a")).toEqual(['{"case":"artifactUpdate"}', '{"case":"statusUpdate"}']);
      expect([bodies("b"), bodies("c")]).toEqual([bodies("a"), bodies("a")]);
    } finally {
      await local.close();
    }
  });
});

const auth = (scheme: string, credentials = "c") => ({ authentication: { scheme, credentials } });

/** [what, config fields, field path, what the message says of the first bad character]. */
const BAD_FIELDS: readonly (readonly [string, Record<string, unknown>, string, string])[] = [
  ["CR LF in the token", { token: "a\r\nX-Evil: 1" }, "token", "holds U+000D, a control character, at index 1"],
  ["LF in the token", { token: "ab\n" }, "token", "holds U+000A, a control character, at index 2"],
  ["NUL in the token", { token: "\u0000" }, "token", "holds U+0000, a control character, at index 0"],
  ["ESC in the token", { token: "x\u001b[31m" }, "token", "holds U+001B, a control character, at index 1"],
  ["DEL in the token", { token: "x\u007f" }, "token", "holds U+007F, a control character, at index 1"],
  ["NEL in the token", { token: "x\u0085" }, "token", "holds U+0085, a control character, at index 1"],
  ["a CJK character in the token", { token: "x\u4e00" }, "token", "holds U+4E00, a character above U+00FF"],
  ["CR LF in the scheme", auth("Bearer\r\nX-Evil: 1"), "authentication.scheme", "holds U+000D"],
  ["LF in the credentials", auth("Bearer", "x\ny"), "authentication.credentials", "holds U+000A"],
  ["LF in the URL", { url: "http://127.0.0.1:1/a\nb" }, "url", "holds U+000A, a control character, at index 20"],
  ["TAB in the URL", { url: "http://127.0.0.1:1/a\tb" }, "url", "holds U+0009"],
  ["LF in the id", { id: "c\nA2A push: forged" }, "id", "holds U+000A, a control character, at index 1, which an id"],
  ["a slash in the id", { id: "a/b" }, "id", 'holds U+002F ("/") at index 1, which an id cannot carry'],
  ["the id ..", { id: ".." }, "id", 'is "..", which an id cannot be: a URL resolves it away'],
  ["a token of 4097 characters", { token: "t".repeat(4097) }, "token", "is 4097 characters long, more than 4096"],
  ["credentials of 5000 characters", auth("Bearer", "c".repeat(5000)), "authentication.credentials", "is 5000"],
];

async function refusal(call: Promise<unknown>): Promise<A2AError> {
  const e = await call.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof A2AError)) throw new Error(`expected an A2AError, got ${String(e)}`);
  return e;
}

describe.each(WAYS)("push config fields over %s", (way: Way) => {
  const message = () => ({
    messageId: crypto.randomUUID(),
    role: Role.USER,
    parts: [{ content: { case: "text" as const, value: "go" } }],
  });
  const newTask = async () => {
    const task = taskOf(
      await servers.client(way).sendMessage({ message: message(), configuration: { returnImmediately: true } }),
    );
    await until("the executor at its gate", () => gates.has(task.id));
    gates.get(task.id)!();
    return task;
  };

  it.each(BAD_FIELDS)(
    "CreateTaskPushNotificationConfig refuses %s, naming the field",
    async (_what, fields, path, says) => {
      const client = servers.client(way);
      const task = await newTask();
      const config = { taskId: task.id, id: "bad", url: `${hookBase}/never`, ...fields };
      const error = await refusal(client.createTaskPushNotificationConfig(config));
      expect(error.type).toBe("InvalidParamsError");
      // v0.3 names the config in a resource name, tasks/{id}/pushNotificationConfigs/{config id}, which a "/" in
      // the config's id already breaks.
      const v03Name = way === "JSONRPC 0.3" && config.id.includes("/");
      const said = v03Name
        ? "Invalid params for tasks/pushNotificationConfig/set: taskId is required"
        : `CreateTaskPushNotificationConfig: ${path} ${says}`;
      expect(error.message).toContain(said);
      expect((await client.listTaskPushNotificationConfigs({ taskId: task.id })).configs).toEqual([]);
    },
  );

  it.each(BAD_FIELDS)(
    "SendMessage refuses %s in its push config, naming the field",
    async (_what, fields, path, says) => {
      const client = servers.client(way);
      const started = gates.size;
      const taskPushNotificationConfig = { url: `${hookBase}/never`, ...fields };
      // returnImmediately: a send that is wrongly accepted returns while its executor waits at its gate.
      const configuration = { taskPushNotificationConfig, returnImmediately: true };
      const error = await refusal(client.sendMessage({ message: message(), configuration }));
      expect(error.type).toBe("InvalidParamsError");
      expect(error.message).toContain(`SendMessage: configuration.taskPushNotificationConfig.${path} ${says}`);
      expect(gates.size, "no executor started").toBe(started);
    },
  );

  it("accepts a token with HTAB and Latin-1, and one of exactly 4096 characters", async () => {
    const client = servers.client(way);
    const task = await newTask();
    const url = `${hookBase}/fine`;
    const tabbed = await client.createTaskPushNotificationConfig({
      taskId: task.id,
      id: "t",
      url,
      token: "a\tb \u00e9",
    });
    expect(tabbed.token).toBe("a\tb \u00e9");
    const long = { taskId: task.id, id: "l", url, token: "t".repeat(4096), ...auth("Bearer", "c".repeat(4096)) };
    expect((await client.createTaskPushNotificationConfig(long)).token).toHaveLength(4096);
  });
});
