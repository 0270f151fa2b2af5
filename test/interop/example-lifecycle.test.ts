/**
 * The task lifecycle of the rebuilt example agent (examples/echo-agent, on createTaskHandler) as the
 * official clients see it: @a2a-js/sdk 1.3.0 (A2A 1.0) and 0.3.14 (A2A 0.3, through the generated
 * version bridge), each in the three bindings both ship (JSON-RPC, HTTP+JSON, gRPC), against one
 * agent on 127.0.0.1:
 *
 *   cancel       a working task ("wait"), sent non-blocking and streaming: CancelTask answers it
 *                canceled, the stream ends with the canceled status, a second cancel is
 *                TaskNotCancelableError (-32002)
 *   resubscribe  to a working task: the Task first, then, after a cancel made by another client (the
 *                other SDK version), the canceled status update, and the stream ends; to a task
 *                waiting for input: the status and artifact events of the turn another client sends
 *   multi-turn   "input" asks for input (input-required, with the agent's prompt); the next message
 *                with the same taskId is echoed and completes that task, by send and by stream
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { INPUT_PROMPT, INPUT_TEXT, WAIT_TEXT } from "../../examples/echo-agent/echo-handler.js";
import { startEchoAgent, type RunningAgent } from "../../examples/echo-agent/server.js";
import {
  ALL_BINDINGS,
  a2aJsV03ClientFor,
  a2aJsV10ClientFor,
  artifactTexts,
  collectEvents,
  describeA2aJsError,
  sentTask,
  stateOf,
  summarizeEvent,
  type A2aBinding,
  type A2aJsClient,
} from "../helpers/a2a-js-peers.js";

/** Bounds a wait for a state (never a timing assertion: a loaded machine only waits longer). */
const WAIT = { timeout: 20_000, interval: 20 };

type Sdk = "1.3.0" | "0.3.14";
const SDKS: readonly Sdk[] = ["1.3.0", "0.3.14"];
const CASES = SDKS.flatMap((sdk) => ALL_BINDINGS.map((binding) => [sdk, binding] as const));

const clientFor = (sdk: Sdk, cardUrl: string, binding: A2aBinding): Promise<A2aJsClient> =>
  sdk === "1.3.0" ? a2aJsV10ClientFor({ cardUrl, binding }) : a2aJsV03ClientFor({ cardUrl, binding });

/** `v[key]` when `v` is an object. */
const prop = (v: unknown, key: string): unknown =>
  typeof v === "object" && v !== null ? (v as Record<string, unknown>)[key] : undefined;

/** The text of the status message of a Task or status update, either SDK's shape. */
function statusText(x: unknown): string {
  const parts = prop(prop(prop(x, "status"), "message"), "parts");
  return (Array.isArray(parts) ? parts : [])
    .map((p) => {
      const content = prop(p, "content");
      if (prop(content, "$case") === "text") return String(prop(content, "value"));
      return prop(p, "kind") === "text" ? String(prop(p, "text")) : "";
    })
    .join("");
}

/** The texts of a task's user messages, in order (history), either SDK's shape. */
function userTexts(task: unknown): string[] {
  const history = prop(task, "history");
  return (Array.isArray(history) ? history : [])
    .filter((m) => prop(m, "role") === "user" || prop(m, "role") === 1)
    .map((m) => statusText({ status: { message: m } }));
}

/** The error a call rejects with, described (fails the test when the call succeeds). */
async function rejectionOf(call: Promise<unknown>): Promise<ReturnType<typeof describeA2aJsError>> {
  const e = await call.then(
    (ok) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(ok)}`);
    },
    (x: unknown) => x,
  );
  return describeA2aJsError(e);
}

let agent: RunningAgent;
/** One client of each SDK over JSON-RPC: "another client", to cancel from. */
const others = new Map<Sdk, A2aJsClient>();

beforeAll(async () => {
  agent = await startEchoAgent();
  for (const sdk of SDKS) others.set(sdk, await clientFor(sdk, agent.urls.card, "JSONRPC"));
});
afterAll(async () => {
  for (const c of others.values()) c.close();
  await agent?.close();
});

describe.each(CASES)("a2a-js %s client over %s → the example agent", (sdk, binding) => {
  let client: A2aJsClient;
  /** A client of the other SDK version, over JSON-RPC. */
  let other: A2aJsClient;
  beforeAll(async () => {
    client = await clientFor(sdk, agent.urls.card, binding);
    expect(client.binding).toBe(binding);
    other = others.get(sdk === "1.3.0" ? "0.3.14" : "1.3.0")!;
  });
  afterAll(() => client?.close());

  /** "wait" sent non-blocking (answered submitted or working), once the task is working. */
  async function sendWait() {
    const task = sentTask(await client.sendText(WAIT_TEXT, { blocking: false }));
    expect(["submitted", "working"]).toContain(stateOf(task));
    await vi.waitFor(async () => expect(stateOf(await client.getTask(task.id))).toBe("working"), WAIT);
    return task;
  }

  /** A second cancel of a canceled task: TaskNotCancelableError. */
  async function expectNotCancelable(id: string) {
    const e = await rejectionOf(client.cancelTask(id));
    expect(e, JSON.stringify(e)).toMatchObject({ code: -32002 });
  }

  it("cancels a working task sent non-blocking; a second cancel is TaskNotCancelable", async () => {
    const task = await sendWait();
    const canceled = await client.cancelTask(task.id);
    expect([canceled.id, stateOf(canceled)]).toEqual([task.id, "canceled"]);
    expect(stateOf(await client.getTask(task.id))).toBe("canceled");
    await expectNotCancelable(task.id);
  });

  it("cancels a working task while its stream is open: the stream ends with the canceled status", async () => {
    const stream = client.openStream(WAIT_TEXT);
    const first = summarizeEvent((await stream.next()).value);
    expect(first).toMatchObject({ kind: "task", state: "submitted" });
    const id = first.taskId!;
    expect(summarizeEvent((await stream.next()).value)).toEqual({
      kind: "status-update",
      taskId: id,
      state: "working",
    });
    const rest = collectEvents(stream);
    expect(stateOf(await client.cancelTask(id))).toBe("canceled");
    const events = await rest;
    expect(events.map(summarizeEvent)).toEqual([{ kind: "status-update", taskId: id, state: "canceled" }]);
    if (sdk === "0.3.14") expect(events.at(-1)).toMatchObject({ final: true });
    await expectNotCancelable(id);
  });

  it("resubscribes to a working task; a cancel made by another client ends both streams", async () => {
    const task = await sendWait();
    const first = client.subscribe(task.id);
    const second = client.subscribe(task.id);
    for (const sub of [first, second]) {
      expect(summarizeEvent((await sub.next()).value)).toEqual({ kind: "task", taskId: task.id, state: "working" });
    }
    const rest = Promise.all([collectEvents(first), collectEvents(second)]);
    expect(stateOf(await other.cancelTask(task.id))).toBe("canceled");
    for (const events of await rest) {
      expect(events.map(summarizeEvent)).toEqual([{ kind: "status-update", taskId: task.id, state: "canceled" }]);
      if (sdk === "0.3.14") expect(events.at(-1)).toMatchObject({ final: true });
    }
    // Refused before the stream: every client raises the error the agent sent (0.3.14's JSON-RPC client reads
    // it from the stream's one event, which v0.3 JSON-RPC answers with: entry stream-start of a2a-v0.3.0.yaml).
    const e = await rejectionOf(collectEvents(client.subscribe(task.id)));
    expect(e.message, JSON.stringify(e)).toMatch(/terminal state/);
  });

  it("resubscribes to a task waiting for input: the second turn's events reach the subscriber", async () => {
    const asked = sentTask(await client.sendText(INPUT_TEXT));
    const sub = client.subscribe(asked.id);
    expect(summarizeEvent((await sub.next()).value)).toEqual({
      kind: "task",
      taskId: asked.id,
      state: "input-required",
    });
    const rest = collectEvents(sub);
    expect(stateOf(await other.sendText("answered elsewhere", { taskId: asked.id }))).toBe("completed");
    const events = await rest;
    expect(events.map(summarizeEvent).filter((e) => e.state !== "working")).toEqual([
      { kind: "artifact-update", taskId: asked.id, text: "answered elsewhere" },
      { kind: "status-update", taskId: asked.id, state: "completed" },
    ]);
    expect(summarizeEvent(events[0])).toEqual({ kind: "status-update", taskId: asked.id, state: "working" });
    if (sdk === "0.3.14") expect(events.at(-1)).toMatchObject({ final: true });
  });

  it('multi-turn by send: "input" asks for input, the next message with its taskId completes it', async () => {
    const asked = sentTask(await client.sendText(INPUT_TEXT));
    expect(stateOf(asked)).toBe("input-required");
    expect(statusText(asked)).toBe(INPUT_PROMPT);
    const done = sentTask(await client.sendText("second turn", { taskId: asked.id }));
    expect([done.id, done.contextId, stateOf(done)]).toEqual([asked.id, asked.contextId, "completed"]);
    expect(artifactTexts(done)).toEqual(["second turn"]);
    expect(userTexts(await client.getTask(asked.id))).toEqual([INPUT_TEXT, "second turn"]);
    // A completed task takes no further turn.
    await expect(client.sendText("third turn", { taskId: asked.id })).rejects.toThrow();
  });

  it("multi-turn by stream: the first stream ends at input-required, the second at completed", async () => {
    const asking = (await client.stream(INPUT_TEXT)).map(summarizeEvent);
    expect(asking.at(-1)).toMatchObject({ state: "input-required" });
    const id = asking[0]!.taskId!;
    const answered = (await client.stream("streamed turn", { taskId: id })).map(summarizeEvent);
    expect(answered[0]).toMatchObject({ kind: "task", taskId: id });
    expect(answered.slice(1)).toEqual([
      { kind: "status-update", taskId: id, state: "working" },
      { kind: "artifact-update", taskId: id, text: "streamed turn" },
      { kind: "status-update", taskId: id, state: "completed" },
    ]);
    expect(artifactTexts(await client.getTask(id))).toEqual(["streamed turn"]);
  });
});
