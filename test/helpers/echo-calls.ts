/**
 * The calls the runtime and framework matrices (test/runtimes.test.ts, test/frameworks.test.ts) make of the
 * echo agent through each client: send ("hello", echoed and completed), stream, get, cancel a waiting task,
 * list, and an unknown task's TaskNotFoundError; through a generated v1.0 client, or through the
 * @a2a-js/sdk 1.3.0 client made from the card.
 */
import { expect } from "vitest";
import { A2AError } from "@protoc-gen-a2a/runtime";
import type { A2AServiceClient } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { TaskState } from "../../generated-samples/v1.0.1/a2a_pb.js";
import {
  type A2aBinding,
  a2aJsV10ClientFor,
  artifactTexts,
  describeA2aJsError,
  sentTask,
  stateOf,
  summarizeEvent,
} from "./a2a-js-peers.js";

/** A user message with one text part. */
export const textMessage = (text: string) => ({
  messageId: crypto.randomUUID(),
  role: 1 /* ROLE_USER */,
  parts: [{ content: { case: "text" as const, value: text } }],
});

export async function generatedClientCalls(client: A2AServiceClient): Promise<void> {
  const sent = await client.sendMessage({ message: textMessage("hello") });
  expect(sent.payload.case).toBe("task");
  const task = sent.payload.case === "task" ? sent.payload.value : undefined;
  expect(task?.status?.state).toBe(TaskState.COMPLETED);
  expect(task?.artifacts[0]?.parts[0]?.content.value).toBe("hello");

  const events: (string | undefined)[] = [];
  for await (const e of client.sendStreamingMessage({ message: textMessage("streamed") })) events.push(e.payload.case);
  expect(events[0]).toBe("task");
  expect(events).toContain("artifactUpdate");

  expect((await client.getTask({ id: task!.id })).id).toBe(task!.id);

  const waiting = await client.sendMessage({
    message: textMessage("wait"),
    configuration: { returnImmediately: true },
  });
  const waitingId = waiting.payload.case === "task" ? waiting.payload.value.id : "";
  expect((await client.cancelTask({ id: waitingId })).status?.state).toBe(TaskState.CANCELED);

  const listed = await client.listTasks({});
  expect(listed.tasks.map((t) => t.id)).toEqual(expect.arrayContaining([task!.id, waitingId]));

  const missing = await client.getTask({ id: "no-such-task" }).catch((e: unknown) => e);
  expect(missing instanceof A2AError ? missing.type : missing).toBe("TaskNotFoundError");
}

export async function a2aJsClientCalls(cardUrl: string, binding: A2aBinding): Promise<void> {
  const client = await a2aJsV10ClientFor({ cardUrl, binding });
  const task = sentTask(await client.sendText("hello"));
  expect(artifactTexts(task)).toEqual(["hello"]);
  expect(summarizeEvent((await client.stream("streamed")).at(-1)).state).toBe("completed");
  expect(stateOf(await client.getTask(task.id))).toBe("completed");
  const waiting = sentTask(await client.sendText("wait", { blocking: false }));
  expect(stateOf(await client.cancelTask(waiting.id))).toBe("canceled");
  const listed = (await client.listTasks({})) as { tasks: { id: string }[] };
  expect(listed.tasks.map((t) => t.id)).toEqual(expect.arrayContaining([task.id, waiting.id]));
  const missing = await client.getTask("no-such-task").then(() => undefined, describeA2aJsError);
  expect(missing).toMatchObject({ name: "TaskNotFoundError" });
}
