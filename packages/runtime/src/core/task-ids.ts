/**
 * The task and context ids a request or an answer names, whatever the
 * version's shapes: a Task (id, contextId), a message or an event (taskId,
 * contextId), a oneof payload holding one, a request's message, a request's
 * taskId or id, or a v0.3 resource name "tasks/{id}…" (name, parent). For
 * logs and telemetry; the handlers read their own fields. The interceptors
 * see a request before its checks, so an id is shown to MAX_SHOWN_ID
 * characters, then "…": a caller's id cannot make a log line or a span
 * attribute as long as it likes.
 */
import { definedNames } from "./records.js";

type Fields = Readonly<Record<string, unknown>>;

const isFields = (value: unknown): value is Fields => typeof value === "object" && value !== null;
const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/** The longest id shown whole. */
export const MAX_SHOWN_ID = 256;

/** The id to MAX_SHOWN_ID characters; a cut never splits a surrogate pair (which would leave half a character). */
function shown(id: string | undefined): string | undefined {
  if (id === undefined || id.length <= MAX_SHOWN_ID) return id;
  const last = id.charCodeAt(MAX_SHOWN_ID - 1);
  return `${id.slice(0, last >= 0xd800 && last <= 0xdbff ? MAX_SHOWN_ID - 1 : MAX_SHOWN_ID)}…`;
}

/** The ids `message` names (see the header); none when it names none. */
export function taskIdsOf(message: unknown): { taskId?: string; contextId?: string } {
  if (!isFields(message)) return {};
  const payload = message["payload"];
  if (isFields(payload) && isFields(payload["value"])) return taskIdsOf(payload["value"]);
  // v1.0 SendMessageRequest.message; v0.3 names the field request.
  const inner = message["message"] ?? message["request"];
  if (isFields(inner)) return taskIdsOf(inner);
  const typeName = text(message["$typeName"]) ?? "";
  const name = text(message["name"]) ?? text(message["parent"]);
  const fromName = name?.startsWith("tasks/") ? name.split("/")[1] : undefined;
  const taskId = typeName.endsWith(".Task")
    ? text(message["id"])
    : (text(message["taskId"]) ?? text(message["id"]) ?? fromName);
  const contextId = text(message["contextId"]);
  return definedNames({ taskId: shown(taskId), contextId: shown(contextId) });
}
