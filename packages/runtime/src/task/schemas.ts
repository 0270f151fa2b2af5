/**
 * The startup check of createTaskHandler: the definition it is given must be
 * lf.a2a.v1.A2AService (A2A v1.0) with the methods and messages the task
 * runtime's shapes (a2a-types.ts) describe. The handler is written against
 * those shapes, so this check is what makes its one cast to the user's
 * A2aHandler<S> sound; a definition that differs is refused here, naming the
 * method or the field, never at the first call.
 *
 *   methods   each RPC by localName, with its request and response type names
 *   messages  every message reachable from those methods whose type the shapes
 *             name has at least the fields the shapes list (by localName)
 *
 * It also returns the schemas the handler writes JSON with (StreamResponse
 * for v1.0 push payloads), taken from the definition, since the runtime ships
 * no generated code.
 */
import type { DescMessage, DescService } from "@bufbuild/protobuf";
import type { A2aServiceDefinition } from "../core/definition.js";

const SERVICE = "lf.a2a.v1.A2AService";
const P = "lf.a2a.v1.";

/** localName → [request type, response type]. */
const METHODS: Readonly<Record<string, readonly [string, string]>> = {
  sendMessage: [`${P}SendMessageRequest`, `${P}SendMessageResponse`],
  sendStreamingMessage: [`${P}SendMessageRequest`, `${P}StreamResponse`],
  getTask: [`${P}GetTaskRequest`, `${P}Task`],
  listTasks: [`${P}ListTasksRequest`, `${P}ListTasksResponse`],
  cancelTask: [`${P}CancelTaskRequest`, `${P}Task`],
  subscribeToTask: [`${P}SubscribeToTaskRequest`, `${P}StreamResponse`],
  createTaskPushNotificationConfig: [`${P}TaskPushNotificationConfig`, `${P}TaskPushNotificationConfig`],
  getTaskPushNotificationConfig: [`${P}GetTaskPushNotificationConfigRequest`, `${P}TaskPushNotificationConfig`],
  listTaskPushNotificationConfigs: [
    `${P}ListTaskPushNotificationConfigsRequest`,
    `${P}ListTaskPushNotificationConfigsResponse`,
  ],
  deleteTaskPushNotificationConfig: [`${P}DeleteTaskPushNotificationConfigRequest`, "google.protobuf.Empty"],
};

/** The fields (localNames) a2a-types.ts gives each message; a oneof counts as one field. */
const FIELDS: Readonly<Record<string, readonly string[]>> = {
  Part: ["content", "metadata", "filename", "mediaType"],
  Message: ["messageId", "contextId", "taskId", "role", "parts", "metadata", "extensions", "referenceTaskIds"],
  TaskStatus: ["state", "message", "timestamp"],
  Artifact: ["artifactId", "name", "description", "parts", "metadata", "extensions"],
  Task: ["id", "contextId", "status", "artifacts", "history", "metadata"],
  TaskStatusUpdateEvent: ["taskId", "contextId", "status", "metadata"],
  TaskArtifactUpdateEvent: ["taskId", "contextId", "artifact", "append", "lastChunk", "metadata"],
  StreamResponse: ["payload"],
  SendMessageResponse: ["payload"],
  AuthenticationInfo: ["scheme", "credentials"],
  TaskPushNotificationConfig: ["tenant", "id", "taskId", "url", "token", "authentication"],
  SendMessageConfiguration: ["acceptedOutputModes", "taskPushNotificationConfig", "historyLength", "returnImmediately"],
  SendMessageRequest: ["tenant", "message", "configuration", "metadata"],
  GetTaskRequest: ["tenant", "id", "historyLength"],
  ListTasksRequest: [
    "tenant",
    "contextId",
    "status",
    "pageSize",
    "pageToken",
    "historyLength",
    "statusTimestampAfter",
    "includeArtifacts",
  ],
  ListTasksResponse: ["tasks", "nextPageToken", "pageSize", "totalSize"],
  CancelTaskRequest: ["tenant", "id", "metadata"],
  SubscribeToTaskRequest: ["tenant", "id"],
  GetTaskPushNotificationConfigRequest: ["tenant", "taskId", "id"],
  DeleteTaskPushNotificationConfigRequest: ["tenant", "taskId", "id"],
  ListTaskPushNotificationConfigsRequest: ["tenant", "taskId", "pageSize", "pageToken"],
  ListTaskPushNotificationConfigsResponse: ["configs", "nextPageToken"],
};

export interface TaskSchemas {
  readonly streamResponse: DescMessage;
}

/** What is missing from one message, or undefined. */
function messageProblem(message: DescMessage): string | undefined {
  const wanted = FIELDS[message.typeName.slice(P.length)];
  if (!message.typeName.startsWith(P) || !wanted) return undefined;
  const have = new Set([...message.fields.map((f) => f.localName), ...message.oneofs.map((o) => o.localName)]);
  const missing = wanted.filter((name) => !have.has(name));
  return missing.length > 0 ? `${message.typeName} lacks ${missing.join(", ")}` : undefined;
}

/** Every problem of the messages reachable from `roots`. */
function messageProblems(roots: readonly DescMessage[]): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  const queue = [...roots];
  for (let m = queue.pop(); m !== undefined; m = queue.pop()) {
    if (seen.has(m.typeName)) continue;
    seen.add(m.typeName);
    const problem = messageProblem(m);
    if (problem) problems.push(problem);
    for (const f of m.fields) if (f.message) queue.push(f.message);
  }
  return problems;
}

function methodProblems(service: DescService): { problems: string[]; roots: DescMessage[] } {
  const problems: string[] = [];
  const roots: DescMessage[] = [];
  for (const [localName, [input, output]] of Object.entries(METHODS)) {
    const method = service.methods.find((m) => m.localName === localName);
    if (!method) {
      problems.push(`method ${localName} is missing`);
      continue;
    }
    if (method.input.typeName !== input || method.output.typeName !== output) {
      const got = `${method.input.typeName} → ${method.output.typeName}`;
      problems.push(`method ${localName} is ${got}, expected ${input} → ${output}`);
    }
    roots.push(method.input, method.output);
  }
  return { problems, roots };
}

/** Checks the definition (see the header); throws an Error listing every problem. */
export function taskSchemas(definition: A2aServiceDefinition): TaskSchemas {
  const service = definition.service;
  const where = `createTaskHandler: the definition of ${service.typeName} (protocol ${definition.protocolVersion})`;
  if (service.typeName !== SERVICE) {
    throw new Error(`${where} is not ${SERVICE}; pass the A2A v1.0 definition (A2AServiceV1_0)`);
  }
  const { problems, roots } = methodProblems(service);
  problems.push(...messageProblems(roots));
  if (problems.length > 0) throw new Error(`${where} does not match the task runtime: ${problems.join("; ")}`);
  const streaming = service.methods.find((m) => m.localName === "sendStreamingMessage");
  if (!streaming) throw new Error(`${where}: method sendStreamingMessage is missing`);
  return { streamResponse: streaming.output };
}
