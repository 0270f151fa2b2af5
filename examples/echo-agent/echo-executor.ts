/**
 * The example agent's behaviour, as an executor for createTaskHandler (the
 * runtime keeps the tasks, streams, cancel and push delivery):
 *
 *   any text   working → one artifact echoing the text → completed
 *   "wait"     working, and stays so until the task is canceled: the executor
 *              returns only then, so the sender's stream (or blocking send)
 *              stays open and ends with the canceled status
 *   "input"    input-required ("What should I echo?"); the next message with the
 *              same taskId is echoed and completes the task
 *   no text    a reply only (no task): "Send me some text."
 */
import type { AgentExecutor, Artifact, Message, RequestContext, TaskUpdater } from "@protoc-gen-a2a/runtime/task";
import { TaskState } from "@protoc-gen-a2a/runtime/task";

export const WAIT_TEXT = "wait";
export const INPUT_TEXT = "input";
export const INPUT_PROMPT = "What should I echo?";

function textOf(message: Message): string {
  return message.parts.map((p) => (p.content.case === "text" ? p.content.value : "")).join("");
}

function echoArtifact(text: string): Artifact {
  return {
    $typeName: "lf.a2a.v1.Artifact",
    artifactId: crypto.randomUUID(),
    name: "echo",
    description: "",
    parts: [
      { $typeName: "lf.a2a.v1.Part", content: { case: "text", value: text }, filename: "", mediaType: "text/plain" },
    ],
    extensions: [],
  };
}

/** Resolves once the signal aborts (CancelTask aborts it, through whichever instance it came). */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

async function echo(updater: TaskUpdater, text: string): Promise<void> {
  await updater.status(TaskState.WORKING);
  await updater.artifact(echoArtifact(text), { lastChunk: true });
  await updater.status(TaskState.COMPLETED);
}

export const echoExecutor: AgentExecutor = {
  async execute(context: RequestContext, updater: TaskUpdater) {
    const text = textOf(context.message);
    if (context.task?.status?.state === TaskState.INPUT_REQUIRED) return echo(updater, text);
    if (text === "") return updater.reply("Send me some text.");
    if (text === WAIT_TEXT) {
      await updater.status(TaskState.WORKING);
      return aborted(context.signal);
    }
    if (text === INPUT_TEXT) return updater.status(TaskState.INPUT_REQUIRED, INPUT_PROMPT);
    return echo(updater, text);
  },
};
