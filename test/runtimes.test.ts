/**
 * The echo agent's HTTP side runs unchanged on Bun, Deno and workerd (Miniflare), each from npm, started as
 * `npm run example -- --runtime <name>` starts it (main.js --runtime, runtimes/): per runtime, the generated
 * v1.0 clients over JSON-RPC and HTTP+JSON and the @a2a-js/sdk 1.3.0 client, each through the agent card,
 * send, stream, get, cancel and list; an unknown task is TaskNotFoundError to each; a body declared over the
 * limit is refused before it is read; a client that leaves a stream is seen by the agent (its request line ends
 * "(closed early)"; on workerd only once the stream next writes) and the agent goes on serving. A runtime that
 * cannot start fails its tests: nothing is skipped.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A2AError, type CallOptions } from "@protoc-gen-a2a/runtime";
import { createA2AServiceJsonRpcClient } from "../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../generated-samples/v1.0.1/a2a_rest.js";
import type { A2AServiceClient } from "../generated-samples/v1.0.1/a2a_a2a.js";
import { type Task, TaskState } from "../generated-samples/v1.0.1/a2a_pb.js";
import { postDeclaringMore } from "./helpers/declared-body.js";
import { type ExampleProcess, startExampleProcess, stopAllExampleProcesses } from "./helpers/example-process.js";
import {
  a2aJsV10ClientFor,
  artifactTexts,
  describeA2aJsError,
  sentTask,
  stateOf,
  summarizeEvent,
} from "./helpers/a2a-js-peers.js";

const RUNTIMES = ["bun", "deno", "workerd"] as const;

afterAll(() => stopAllExampleProcesses());

const message = (text: string) => ({
  messageId: crypto.randomUUID(),
  role: 1 /* ROLE_USER */,
  parts: [{ content: { case: "text" as const, value: text } }],
});

/** The text of the first part of the task's first artifact. */
const echoed = (task: Task) => task.artifacts[0]?.parts[0]?.content.value;

/** Send, stream, get, cancel, list and an unknown task through one generated client. */
async function generatedClientCalls(client: A2AServiceClient) {
  const sent = await client.sendMessage({ message: message("hello") });
  expect(sent.payload.case).toBe("task");
  const task = sent.payload.case === "task" ? sent.payload.value : undefined;
  expect(task?.status?.state).toBe(TaskState.COMPLETED);
  expect(echoed(task!)).toBe("hello");

  const events = [];
  for await (const e of client.sendStreamingMessage({ message: message("streamed") })) events.push(e.payload.case);
  expect(events[0]).toBe("task");
  expect(events).toContain("artifactUpdate");

  const got = await client.getTask({ id: task!.id });
  expect(got.id).toBe(task!.id);

  const waiting = await client.sendMessage({ message: message("wait"), configuration: { returnImmediately: true } });
  const waitingId = waiting.payload.case === "task" ? waiting.payload.value.id : "";
  const canceled = await client.cancelTask({ id: waitingId });
  expect(canceled.status?.state).toBe(TaskState.CANCELED);

  const listed = await client.listTasks({});
  expect(listed.tasks.map((t) => t.id)).toEqual(expect.arrayContaining([task!.id, waitingId]));

  const missing = await client.getTask({ id: "no-such-task" }).catch((e: unknown) => e);
  expect(missing instanceof A2AError ? missing.type : missing).toBe("TaskNotFoundError");
}

describe.each(RUNTIMES)("the echo agent on %s", (runtime) => {
  let agent: ExampleProcess;

  beforeAll(async () => {
    agent = await startExampleProcess({}, { runtime });
  });

  it("names the runtime and its version in its first line", () => {
    const names = {
      bun: /^echo agent on Bun \d+\.\d+/,
      deno: /^echo agent on Deno \d+\.\d+/,
      workerd: /^echo agent on workerd \d/,
    };
    expect(agent.out()).toMatch(names[runtime]);
  });

  it.each(["JSON-RPC", "HTTP+JSON"] as const)("generated v1.0 client over %s", async (binding) => {
    const options = { url: binding === "JSON-RPC" ? agent.urls.jsonrpc : agent.urls.rest };
    const client =
      binding === "JSON-RPC" ? createA2AServiceJsonRpcClient(options) : createA2AServiceRestClient(options);
    await generatedClientCalls(client);
  });

  it.each(["JSONRPC", "HTTP+JSON"] as const)("@a2a-js/sdk 1.3.0 client over %s, from the card", async (binding) => {
    const client = await a2aJsV10ClientFor({ cardUrl: agent.urls.card, binding });
    const task = sentTask(await client.sendText("hello"));
    expect(artifactTexts(task)).toEqual(["hello"]);
    const events = await client.stream("streamed");
    expect(summarizeEvent(events.at(-1)).state).toBe("completed");
    expect(stateOf(await client.getTask(task.id))).toBe("completed");
    const waiting = sentTask(await client.sendText("wait", { blocking: false }));
    expect(stateOf(await client.cancelTask(waiting.id))).toBe("canceled");
    const listed = (await client.listTasks({})) as { tasks: { id: string }[] };
    expect(listed.tasks.map((t) => t.id)).toEqual(expect.arrayContaining([task.id, waiting.id]));
    const missing = await client.getTask("no-such-task").then(() => undefined, describeA2aJsError);
    expect(missing).toMatchObject({ name: "TaskNotFoundError" });
  });

  it("refuses a body declared over the limit (1 MiB) without reading it", async () => {
    const headers = { "content-type": "application/json", "a2a-version": "1.0" };
    const status = await postDeclaringMore(agent.urls.jsonrpc, headers, 2 << 20);
    expect(status).toBe(413);
  });

  it("sees a client leave a stream, and serves on", async () => {
    const client = createA2AServiceJsonRpcClient({ url: agent.urls.jsonrpc });
    const abort = new AbortController();
    const options: CallOptions = { signal: abort.signal };
    const stream = client.sendStreamingMessage({ message: message("wait") }, options);
    for await (const e of stream) {
      expect(e.payload.case).toBe("task");
      abort.abort();
      break;
    }
    // workerd notices a client that left only when it next writes to the stream, and a waiting task writes
    // nothing: there the stream stays open inside until the task ends (README: Runtimes).
    if (runtime !== "workerd")
      await expect
        .poll(() => agent.out(), { timeout: 10_000 })
        .toMatch(/POST \/a2a\/jsonrpc v1\.0 200 \S+ \(closed early\)/);
    const again = await client.sendMessage({ message: message("still here") });
    expect(again.payload.case).toBe("task");
  });
});
