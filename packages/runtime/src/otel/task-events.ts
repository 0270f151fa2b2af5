/**
 * Span events for what happens to a task, from the events a stream carries
 * or a turn hears (v1.0 and v0.3 StreamResponse, Task):
 *
 *   a2a.task.status     a2a.task.state (TASK_STATE_WORKING, …), a2a.task.id
 *                       (a Task or a status update)
 *   a2a.task.artifact   a2a.artifact.id, a2a.artifact.append,
 *                       a2a.artifact.last_chunk, a2a.task.id
 *   a2a.message         a2a.message.id, a2a.message.role (a message)
 *
 * The two versions number TaskState alike, so one table names both.
 */
import type { Attributes, Span } from "@opentelemetry/api";
import { stateName } from "../task/task-shapes.js";

type Fields = Readonly<Record<string, unknown>>;

const isFields = (value: unknown): value is Fields => typeof value === "object" && value !== null;
const stateOf = (status: unknown) => (isFields(status) && typeof status["state"] === "number" ? status["state"] : 0);

/** The span event of one stream event or task, if it is one that tells something of the task. */
export function taskEvent(event: unknown): { name: string; attributes: Attributes } | undefined {
  if (!isFields(event)) return undefined;
  const payload = event["payload"];
  if (isFields(payload) && typeof payload["case"] === "string") return caseEvent(payload["case"], payload["value"]);
  if (typeof event["$typeName"] === "string" && event["$typeName"].endsWith(".Task")) return caseEvent("task", event);
  return undefined;
}

function caseEvent(kind: string, value: unknown): { name: string; attributes: Attributes } | undefined {
  if (!isFields(value)) return undefined;
  const taskId = String(value[kind === "task" ? "id" : "taskId"] ?? "");
  if (kind === "task" || kind === "statusUpdate") {
    const state = stateName(stateOf(value["status"]));
    return { name: "a2a.task.status", attributes: { "a2a.task.state": state, "a2a.task.id": taskId } };
  }
  if (kind === "artifactUpdate") {
    const artifact = isFields(value["artifact"]) ? value["artifact"] : {};
    const attributes: Attributes = {
      "a2a.artifact.id": String(artifact["artifactId"] ?? ""),
      "a2a.artifact.append": value["append"] === true,
      "a2a.artifact.last_chunk": value["lastChunk"] === true,
      "a2a.task.id": taskId,
    };
    return { name: "a2a.task.artifact", attributes };
  }
  if (kind === "message" || kind === "msg") {
    const attributes = {
      "a2a.message.id": String(value["messageId"] ?? ""),
      "a2a.message.role": Number(value["role"]),
    };
    return { name: "a2a.message", attributes };
  }
  return undefined;
}

/** Adds the span event of `event`, if it has one. */
export function recordTaskEvent(span: Span, event: unknown): void {
  const e = taskEvent(event);
  if (e !== undefined) span.addEvent(e.name, e.attributes);
}
