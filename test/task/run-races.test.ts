/**
 * Races around one executor call (packages/runtime/src/task/run.ts, send-start.ts), made to happen many times
 * on the memory store, where a few microtasks decide who wins:
 *
 * - a CancelTask committed right after a follow-up message joins its task, before the executor starts, still
 *   aborts the executor's signal (the run listens from before the join);
 */
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { createTaskHandler, TaskState, type AgentExecutor } from "@protoc-gen-a2a/runtime/task";
import { A2AServiceV1_0 } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import {
  CancelTaskRequestSchema,
  GetTaskRequestSchema,
  Role,
  SendMessageRequestSchema,
  type Task,
} from "../../generated-samples/v1.0.1/a2a_pb.js";
import { handlerContext } from "../helpers/task-values.js";

const context = handlerContext();

const send = (text: string, taskId = "", returnImmediately = false) =>
  create(SendMessageRequestSchema, {
    message: {
      messageId: crypto.randomUUID(),
      role: Role.USER,
      taskId,
      parts: [{ content: { case: "text", value: text } }],
    },
    configuration: { returnImmediately },
  });

/** Resolves after `n` turns of the microtask queue. */
async function ticks(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await undefined;
}

describe("a cancel right after a follow-up joins its task", () => {
  const TRIALS = 60;

  it(`aborts the executor's signal, whichever microtask it lands on (${TRIALS} trials)`, async () => {
    /** Per continued turn: whether its signal was aborted within the wait. */
    const heard = new Map<string, boolean>();
    const executor: AgentExecutor = {
      async execute(ctx, up) {
        if (!ctx.task) return up.status(TaskState.INPUT_REQUIRED, "which one?");
        const aborted = new Promise<boolean>((resolve) => {
          if (ctx.signal.aborted) resolve(true);
          ctx.signal.addEventListener("abort", () => resolve(true));
          setTimeout(() => resolve(false), 1000);
        });
        heard.set(ctx.taskId, await aborted);
      },
    };
    const handler = createTaskHandler({ definition: A2AServiceV1_0, executor });
    let both = 0;
    for (let k = 0; k < TRIALS; k++) {
      const answer = await handler.sendMessage!(send("ask"), context);
      const asked = answer.payload?.value as Task;
      const cancel = create(CancelTaskRequestSchema, { id: asked.id });
      const [sent, canceled] = await Promise.allSettled([
        handler.sendMessage!(send("answer", asked.id, true), context),
        ticks(k).then(() => handler.cancelTask!(cancel, context)),
      ]);
      // A cancel before the join refuses the message; only trials where both calls held race the executor.
      if (sent.status === "rejected" || canceled.status === "rejected") continue;
      both++;
      const stored = await handler.getTask!(create(GetTaskRequestSchema, { id: asked.id }), context);
      expect(stored.status?.state).toBe(TaskState.CANCELED);
      await expect.poll(() => heard.get(asked.id), { timeout: 2000 }).toBe(true);
    }
    expect(both).toBeGreaterThan(TRIALS / 2);
  });
});
