import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { A2AError } from "@protoc-gen-a2a/runtime";
import type { A2AServiceClient } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { createA2AServiceJsonRpcClient } from "../../generated-samples/v1.0.1/a2a_jsonrpc.js";
import { createA2AServiceRestClient } from "../../generated-samples/v1.0.1/a2a_rest.js";
import { Role, TaskState, type StreamResponse, type Task } from "../../generated-samples/v1.0.1/a2a_pb.js";
import { INPUT_PROMPT, INPUT_TEXT, WAIT_TEXT } from "../../examples/echo-agent/echo-handler.js";
import { startExampleProcess, stopAllExampleProcesses, type ExampleProcess } from "../helpers/example-process.js";
import { createTestDatabase, type TestDatabase } from "../helpers/postgres.js";

/** Bounds each wait (never a timing assertion: a loaded machine only waits longer). */
const WAIT = { timeout: 30_000, interval: 25 };

const text = (t: string, extra: { taskId?: string; contextId?: string } = {}) => ({
  messageId: crypto.randomUUID(),
  role: Role.USER,
  parts: [{ content: { case: "text" as const, value: t } }],
  ...extra,
});

const taskOf = (r: { payload: { case: string | undefined; value?: unknown } }): Task => {
  expect(r.payload.case).toBe("task");
  return r.payload.value as Task;
};

/** A short, comparable form of a stream event. */
function summary(e: StreamResponse): string {
  const p = e.payload;
  if (p.case === "task") return `task ${TaskState[p.value.status?.state ?? 0]}`;
  if (p.case === "statusUpdate") return `status ${TaskState[p.value.status?.state ?? 0]}`;
  if (p.case === "artifactUpdate") {
    const part = p.value.artifact?.parts[0]?.content;
    return `artifact ${part?.case === "text" ? part.value : "?"}`;
  }
  return String(p.case);
}

/** An open stream: its first event read, the rest collected until it ends (bounded). */
async function open(stream: AsyncIterable<StreamResponse>): Promise<{ first: string; rest: Promise<string[]> }> {
  const it = stream[Symbol.asyncIterator]();
  const head = await it.next();
  if (head.done) throw new Error("the stream ended before its first event");
  const rest = (async () => {
    const out: string[] = [];
    for (let r = await it.next(); !r.done; r = await it.next()) out.push(summary(r.value));
    return out;
  })();
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the stream did not end within ${WAIT.timeout} ms`)), WAIT.timeout);
  });
  const ended = Promise.race([rest, bound]).finally(() => clearTimeout(timer));
  // A test that fails before reading it leaves it unread; the agents are killed then, which ends it.
  ended.catch(() => undefined);
  return { first: summary(head.value), rest: ended };
}

let database: TestDatabase | undefined;
const agents: { name: "A" | "B"; process: ExampleProcess; client: A2AServiceClient }[] = [];

beforeAll(async () => {
  database = await createTestDatabase("two_agents");
  const url = new URL(database.url);
  // Both start at once: each migrates on start (migrate() is safe to run concurrently).
  const [a, b] = await Promise.all([
    startExampleProcess({ DATABASE_URL: url.href }),
    startExampleProcess({ DATABASE_URL: url.href }),
  ]);
  agents.push({ name: "A", process: a, client: createA2AServiceJsonRpcClient({ url: a.urls.jsonrpc }) });
  agents.push({ name: "B", process: b, client: createA2AServiceRestClient({ url: b.urls.rest }) });
});

afterAll(async () => {
  await stopAllExampleProcesses();
  await database?.drop();
});

it("runs two distinct agent processes on their own ports", () => {
  const [a, b] = agents.map((x) => x.process);
  expect(new Set([a!.pid, b!.pid, process.pid]).size).toBe(3);
  expect(a!.urls.rest).not.toBe(b!.urls.rest);
});

describe.each([
  ["A", "B"],
  ["B", "A"],
] as const)("made through %s, used through %s", (from, to) => {
  const maker = () => agents.find((x) => x.name === from)!.client;
  const user = () => agents.find((x) => x.name === to)!.client;

  it("is read, listed, subscribed to and canceled; every stream on either side ends canceled", async () => {
    const contextId = crypto.randomUUID();
    // The send's stream stays open while the executor (in the maker's process) waits for the cancel.
    const sending = await open(maker().sendStreamingMessage({ message: text(WAIT_TEXT, { contextId }) }));
    expect(sending.first).toBe("task SUBMITTED");
    const [listed] = (await user().listTasks({ contextId })).tasks;
    const id = listed!.id;
    await vi.waitFor(async () => expect((await user().getTask({ id })).status?.state).toBe(TaskState.WORKING), WAIT);
    expect((await user().listTasks({ contextId })).tasks.map((t) => [t.id, t.status?.state])).toEqual([
      [id, TaskState.WORKING],
    ]);
    const there = await open(user().subscribeToTask({ id }));
    const here = await open(maker().subscribeToTask({ id }));
    expect([there.first, here.first]).toEqual(["task WORKING", "task WORKING"]);

    expect((await user().cancelTask({ id })).status?.state).toBe(TaskState.CANCELED);
    expect(await there.rest).toEqual(["status CANCELED"]);
    expect(await here.rest).toEqual(["status CANCELED"]);
    expect((await sending.rest).at(-1)).toBe("status CANCELED");
    expect((await maker().getTask({ id })).status?.state).toBe(TaskState.CANCELED);
    await expect(maker().cancelTask({ id })).rejects.toSatisfy(
      (e) => e instanceof A2AError && e.type === "TaskNotCancelableError",
    );
  });

  it("a subscriber sees the events of the executor running in the other process", async () => {
    const asked = taskOf(await maker().sendMessage({ message: text(INPUT_TEXT) }));
    expect(asked.status?.state).toBe(TaskState.INPUT_REQUIRED);
    const prompt = asked.status?.message?.parts[0]?.content;
    expect(prompt?.case === "text" && prompt.value).toBe(INPUT_PROMPT);
    const there = await open(user().subscribeToTask({ id: asked.id }));
    expect(there.first).toBe("task INPUT_REQUIRED");

    const answer = `second turn through ${from}`;
    const done = taskOf(await maker().sendMessage({ message: text(answer, { taskId: asked.id }) }));
    expect([done.id, done.status?.state]).toEqual([asked.id, TaskState.COMPLETED]);
    const events = await there.rest;
    expect(events.filter((e) => !e.startsWith("status WORKING"))).toEqual([`artifact ${answer}`, "status COMPLETED"]);
    expect(events[0]).toBe("status WORKING");
    const read = await user().getTask({ id: asked.id });
    expect(read.artifacts.map((a) => a.parts[0]?.content.value)).toEqual([answer]);
  });
});
